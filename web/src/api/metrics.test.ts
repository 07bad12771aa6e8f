import { describe, expect, test } from "bun:test";
import { bucketDelta, buckets, histogramQuantile, labelled, METRIC, parsePrometheus, total, value } from "./metrics";

// Scraped from dist/ursa (0.1.0) after a create, 3 appends of 2 messages (before), then 10 more
// appends, an append-batch of 2 frames (3 messages), a 404, a 409 and a parked long-poll (after).
const read = (name: string) => Bun.file(new URL(`./testing/${name}`, import.meta.url)).text();

describe("Prometheus text, as ursa writes it", () => {
  test("every family the server page reads is there, with its type", async () => {
    const f = parsePrometheus(await read("metrics-after.prom"));
    for (const name of Object.values(METRIC)) expect(f.has(name)).toBe(true);
    expect(f.get(METRIC.appendedMessages)!.type).toBe("counter");
    expect(f.get(METRIC.commitSeconds)!.type).toBe("histogram");
    expect(f.get(METRIC.syncSeconds)!.type).toBe("histogram");
    expect(f.get(METRIC.ready)!.type).toBe("gauge");
    // A family with HELP and TYPE but no sample yet (no error response before) parses empty.
    expect(parsePrometheus(await read("metrics-before.prom")).get("ursa_http_error_responses_total")!.samples).toEqual([]);
  });
  test("counters, gauges and labelled samples hold the values of the traffic that was sent", async () => {
    const before = parsePrometheus(await read("metrics-before.prom"));
    const after = parsePrometheus(await read("metrics-after.prom"));
    expect(value(before, METRIC.appendedMessages)).toBe(6);
    expect(value(after, METRIC.appendedMessages)).toBe(19);
    // 10 × `{"n":3}` LF (8 bytes) and the batch's {"n":1}, 2, 3 as stored (8 + 2 + 2).
    expect(value(after, METRIC.appendedBytes)! - value(before, METRIC.appendedBytes)!).toBe(92);
    expect(labelled(after, METRIC.liveReaders, { kind: "long_poll" })).toBe(1);
    expect(labelled(after, METRIC.liveReaders, { kind: "sse" })).toBe(0);
    expect(labelled(after, METRIC.requests, { family: "stream", method: "POST", status: "409" })).toBe(1);
    expect(labelled(after, "ursa_http_error_responses_total", { code: "STREAM_NOT_FOUND" })).toBe(1);
    expect(value(after, METRIC.ready)).toBe(1);
    expect(value(after, "ursa_missing_total")).toBeNull();
  });
  test("a histogram's _bucket, _sum and _count belong to it; buckets are cumulative up to +Inf", async () => {
    const f = parsePrometheus(await read("metrics-after.prom")).get(METRIC.commitSeconds)!;
    const b = buckets(f);
    expect(b.length).toBe(14);
    expect(b[b.length - 1]![0]).toBe(Infinity);
    expect(b[b.length - 1]![1]).toBe(total(f, `${METRIC.commitSeconds}_count`));
    for (let i = 1; i < b.length; i++) expect(b[i]![1]).toBeGreaterThanOrEqual(b[i - 1]![1]);
    const p99 = histogramQuantile(0.99, b)!;
    expect(p99).toBeGreaterThan(0);
    expect(p99).toBeLessThanOrEqual(1);
  });
  test("label values with escapes; timestamps after the value are ignored", () => {
    const f = parsePrometheus(`# TYPE up gauge\nup{path="a\\"b\\\\c"} 1 1700000000000\n`);
    expect(f.get("up")!.samples[0]).toEqual({ name: "up", labels: { path: 'a"b\\c' }, value: 1 });
  });
});

describe("histogram arithmetic", () => {
  test("quantiles interpolate inside the bucket, as histogram_quantile does", () => {
    const b: [number, number][] = [
      [0.001, 10],
      [0.01, 90],
      [Infinity, 100],
    ];
    expect(histogramQuantile(0.5, b)).toBeCloseTo(0.001 + 0.009 * (40 / 80));
    expect(histogramQuantile(0.99, b)).toBe(0.01);
    expect(histogramQuantile(0.5, [[1, 0]])).toBeUndefined();
  });
  test("deltas between scrapes; a reset starts over", () => {
    expect(bucketDelta([[1, 5]], [[1, 8]])).toEqual([[1, 3]]);
    expect(bucketDelta([[1, 9]], [[1, 2]])).toEqual([[1, 2]]);
  });
});
