import { expect, test } from "bun:test";
import { parsePrometheus } from "../api/metrics";
import { derive, MetricsModel } from "./serverMetrics";

const read = (name: string) => Bun.file(new URL(`../api/testing/${name}`, import.meta.url)).text();

test("rates and latencies come from what changed between two real scrapes", async () => {
  const a = { at: 0, families: parsePrometheus(await read("metrics-before.prom")) };
  const b = { at: 2000, families: parsePrometheus(await read("metrics-after.prom")) };
  const d = derive(a, b);
  expect(d.missing).toEqual([]);
  // 13 messages and 92 bytes appended in 2 s.
  expect(d.messagesPerSec).toBe(6.5);
  expect(d.bytesPerSec).toBe(46);
  // 10 appends, the batch, a 404 and a 409 answered (the parked long-poll is counted when it
  // answers): 13 requests, 2 of them refused.
  expect(d.requestsPerSec).toBe(6.5);
  expect(d.errorRequestsPerSec).toBe(1);
  expect(d.commit!.over).toBe("window");
  expect(d.commit!.count).toBeGreaterThan(0);
  expect(d.commit!.p50).toBeGreaterThan(0);
  expect(d.commit!.p99!).toBeGreaterThanOrEqual(d.commit!.p50!);
  expect(d.sync!.count).toBe(d.commit!.count);
  expect(d.longPollReaders).toBe(1);
  expect(d.ready).toBe(true);
  expect(d.databaseBytes).toBeGreaterThan(0);
  // The first scrape has nothing to compare with: no rate, latencies since start.
  const first = derive(null, a);
  expect(first.messagesPerSec).toBeNull();
  expect(first.commit!.over).toBe("start");
});

test("an idle window falls back to the latencies since start", async () => {
  const text = await read("metrics-after.prom");
  const d = derive({ at: 0, families: parsePrometheus(text) }, { at: 2000, families: parsePrometheus(text) });
  expect(d.messagesPerSec).toBe(0);
  expect(d.commit!.over).toBe("start");
  expect(d.commit!.p50).not.toBeNull();
});

test("a server without the endpoint is reported as such; a refused scrape says why", async () => {
  const ready = async () => ({ ready: true, status: 200 }) as const;
  const m = new MetricsModel(async () => ({ ok: false, status: 404, message: "Not Found" }), ready);
  await m.scrape();
  expect([m.available.value, m.error.value]).toEqual([false, null]);
  const refused = new MetricsModel(async () => ({ ok: false, status: 403, code: "INSUFFICIENT_SCOPE", message: "limited" }), ready);
  await refused.scrape();
  expect(refused.error.value).toEqual({ status: 403, code: "INSUFFICIENT_SCOPE", message: "limited" });
  expect(refused.readiness.value).toEqual({ ready: true, status: 200 });
});
