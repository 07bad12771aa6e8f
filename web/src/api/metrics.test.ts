import { describe, expect, test } from "bun:test";
import { appendCounter, bucketDelta, buckets, commitLatency, histogramQuantile, parsePrometheus, summaryQuantile, total } from "./metrics";

const TEXT = `# HELP ursa_appends_total Appends accepted.
# TYPE ursa_appends_total counter
ursa_appends_total{kind="json"} 40
ursa_appends_total{kind="bytes"} 2
# HELP ursa_commit_duration_seconds Time from BEGIN to durable.
# TYPE ursa_commit_duration_seconds histogram
ursa_commit_duration_seconds_bucket{le="0.001"} 10
ursa_commit_duration_seconds_bucket{le="0.01"} 90
ursa_commit_duration_seconds_bucket{le="+Inf"} 100
ursa_commit_duration_seconds_sum 0.4
ursa_commit_duration_seconds_count 100
# TYPE up gauge
up{path="a\\"b"} 1 1700000000000
`;

describe("Prometheus text", () => {
  test("families, labels with escapes, histogram parts in their family", () => {
    const f = parsePrometheus(TEXT);
    expect([...f.keys()]).toEqual(["ursa_appends_total", "ursa_commit_duration_seconds", "up"]);
    expect(total(f.get("ursa_appends_total")!)).toBe(42);
    expect(f.get("ursa_commit_duration_seconds")!.samples).toHaveLength(5);
    expect(f.get("up")!.samples[0]).toEqual({ name: "up", labels: { path: 'a"b' }, value: 1 });
    expect(appendCounter(f)!.name).toBe("ursa_appends_total");
    expect(commitLatency(f)!.type).toBe("histogram");
  });
  test("quantiles interpolate inside the bucket, as histogram_quantile does", () => {
    const b = buckets(parsePrometheus(TEXT).get("ursa_commit_duration_seconds")!);
    expect(b).toEqual([
      [0.001, 10],
      [0.01, 90],
      [Infinity, 100],
    ]);
    expect(histogramQuantile(0.5, b)).toBeCloseTo(0.001 + 0.009 * (40 / 80));
    expect(histogramQuantile(0.99, b)).toBe(0.01);
    expect(histogramQuantile(0.5, [[1, 0]])).toBeUndefined();
  });
  test("deltas between scrapes; a reset starts over", () => {
    expect(bucketDelta([[1, 5]], [[1, 8]])).toEqual([[1, 3]]);
    expect(bucketDelta([[1, 9]], [[1, 2]])).toEqual([[1, 2]]);
  });
  test("a differently named exporter is still found; summaries give their quantiles", () => {
    const f = parsePrometheus(`# TYPE srv_stream_appends_total counter\nsrv_stream_appends_total 3\n# TYPE srv_commit_latency summary\nsrv_commit_latency{quantile="0.99"} 0.02\nsrv_commit_latency_sum 1\nsrv_commit_latency_count 9\n`);
    expect(appendCounter(f)!.name).toBe("srv_stream_appends_total");
    expect(summaryQuantile(commitLatency(f)!, 0.99)).toBe(0.02);
  });
});
