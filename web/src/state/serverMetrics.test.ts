import { expect, test } from "bun:test";
import { parsePrometheus } from "../api/metrics";
import { derive, MetricsModel } from "./serverMetrics";

const text = (appends: number, b1: number, b2: number, inf: number) =>
  `# TYPE ursa_appends_total counter\nursa_appends_total ${appends}\n# TYPE ursa_commit_duration_seconds histogram\nursa_commit_duration_seconds_bucket{le="0.001"} ${b1}\nursa_commit_duration_seconds_bucket{le="0.01"} ${b2}\nursa_commit_duration_seconds_bucket{le="+Inf"} ${inf}\n`;

test("the append rate and latency come from what changed between two scrapes", () => {
  const a = { at: 0, families: parsePrometheus(text(100, 50, 60, 60)) };
  const b = { at: 2000, families: parsePrometheus(text(300, 50, 160, 160)) };
  const d = derive(a, b);
  expect(d.appendRate).toBe(100);
  expect(d.windowMs).toBe(2000);
  // All 100 commits of the window fell in (0.001, 0.01]: the median is inside that bucket.
  expect(d.p50).toBeCloseTo(0.001 + 0.009 * 0.5);
  expect(derive(null, a).appendRate).toBeNull();
});

test("a server without the endpoint is reported as such, not as an error", async () => {
  const m = new MetricsModel(async () => ({ ok: false, status: 404, message: "Not Found" }));
  await m.scrape();
  expect([m.available.value, m.error.value]).toEqual([false, null]);
});
