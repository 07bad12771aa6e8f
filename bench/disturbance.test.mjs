// Which bench runs count as disturbed, and so are rerun and passed over by best-of.
import assert from "node:assert/strict";
import { test } from "node:test";
import { disturbance } from "./lib/bench.mjs";
import { renderReport } from "./lib/report.mjs";

const run = (serverCpuPct, clientCpuPct, otherCpuPct = 0, windowS = 5, stealPct = 0) => ({ serverCpuPct, clientCpuPct, otherCpuPct, windowS, stealPct });

test("other processes over 15% of a core disturb any run", () => {
  assert.equal(disturbance("sse", "ursa", run(50, 80, 16)), "other processes 16% CPU");
  assert.equal(disturbance("append", "ceiling", run(90, 100, 15)), null);
});

test("the host taking over 10% of a core disturbs any run, before it can look like a stall", () => {
  // Figures from one hour of this machine: the same ceiling read 26.1k appends/s with 53% of a
  // core stolen and 16.1k with 82%; ursa 7.6k with 90%.
  assert.equal(disturbance("append", "ursa", run(60, 36, 0, 5, 90)), "host steal 90% of a core");
  assert.equal(disturbance("longpoll", "ursa", run(5, 5, 0, 5, 11)), "host steal 11% of a core");
  assert.equal(disturbance("append", "ceiling", run(90, 100, 0, 5, 10)), null);
});

test("an append run that keeps neither side busy stalled, unless the server waits on its disk", () => {
  assert.equal(disturbance("append", "ceiling", run(67, 72)), "stalled: server 67%, client 72% CPU");
  assert.equal(disturbance("append", "ceiling", run(89, 101)), null);
  assert.equal(disturbance("append", "ursa", run(104, 61)), null);
  assert.equal(disturbance("append", "ref-file", run(66, 17)), null);
  assert.equal(disturbance("append", "fsync-ceiling", run(20, 0)), null);
  // Other workloads are not closed loops at full speed: an SSE writer at 50 events/s idles by design.
  assert.equal(disturbance("sse", "ursa", run(12, 14)), null);
});

test("with a handful of writers only what is CPU-bound can stall", () => {
  const writers = (n) => ({ writers: n });
  // One writer: client and server take turns, and neither is ever near a full core.
  assert.equal(disturbance("append", "ceiling", run(33, 53), writers(1)), null);
  assert.equal(disturbance("append", "ref-mem", run(60, 40), writers(1)), null);
  assert.equal(disturbance("append", "ref-mem", run(60, 40), writers(4)), "stalled: server 60%, client 40% CPU");
  // Durable ursa's writers wait on fdatasync until there are enough of them to keep it busy.
  assert.equal(disturbance("append", "ursa", run(60, 40), writers(4)), null);
  assert.equal(disturbance("append", "ursa", run(60, 40), writers(16)), "stalled: server 60%, client 40% CPU");
  assert.equal(disturbance("append", "ursa-mem", run(60, 40), writers(4)), "stalled: server 60%, client 40% CPU");
});

test("windows too short to judge, and runs without figures, are never marked", () => {
  assert.equal(disturbance("append", "ceiling", run(10, 10, 90, 0.4)), null);
  assert.equal(disturbance("append", "ceiling", undefined), null);
});

test("the report counts the reruns that were made, not the disturbed runs", () => {
  // As with --from-jsonl: rules stricter than the ones in force at run time mark runs that were not rerun.
  const runs = [
    { case: "a", server: "ursa", attempt: 0, disturbance: "host steal 12% of a core" },
    { case: "b", server: "ursa", attempt: 0, disturbance: "host steal 40% of a core" },
    { case: "b", server: "ursa", attempt: 1, disturbance: null },
  ];
  const text = renderReport({ bests: [], targets: [], skippedServers: [], runs });
  assert.match(text, /2 run\(s\) were disturbed .*; 1 rerun\(s\) were made, and best-of prefers clean runs\./);
});
