// longpoll: wake-up latency. W readers park at the tail (live=long-poll), then one append is
// sent; each reader's latency is from just before the append is written to the end of its
// response. Repeated for a bounded time / number of rounds. Readers and writer each have their
// own connection. Reports wake-up percentiles, and any early or timed-out wake-ups.
import { Conn } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";
import { Samples, sleep } from "../lib/stats.mjs";

/** p: { waiters, parkMs, durationMs, maxRounds, warmupRounds, runId } */
export async function run(server, p) {
  const path = `/v1/stream/bench-${p.runId}-lp`;
  // With several instances (ursa-pg2), the writer appends on the first and the readers wait on the
  // second: every wake crosses instances (LISTEN/NOTIFY).
  const [writeUrl, readUrl] = server.instanceUrls?.length >= 2 ? server.instanceUrls : [server.url, server.url];
  const writer = new Conn(writeUrl, { idleReconnectMs: 60_000 });
  const readers = Array.from({ length: p.waiters }, () => new Conn(readUrl, { idleReconnectMs: 60_000 }));
  const body = Buffer.alloc(16, 0x61);
  try {
    const c = await writer.request("PUT", path, "Content-Type: application/octet-stream\r\n", null);
    if (c.status < 200 || c.status > 299) throw new Error(`create: HTTP ${c.status}`);
    const first = await writer.request("POST", path, "Content-Type: application/octet-stream\r\n", body, { discardBody: true });
    let tail = first.headers["stream-next-offset"];
    await Promise.all(readers.map((r) => r.connect()));
    const lat = new Samples(1 << 14);
    const appendLat = new Samples(1024);
    let rounds = 0, early = 0, timeouts = 0, errors = 0, wrongOffset = 0;
    const errorSamples = [];
    const note = (s) => errorSamples.length < 5 && errorSamples.push(s);
    let meter = null;
    const deadline = performance.now() + p.durationMs;
    for (let round = 0; round < p.maxRounds + p.warmupRounds; round++) {
      if (round === p.warmupRounds) meter = cpuMeter(server.cpuPids());
      if (round >= p.warmupRounds && performance.now() > deadline) break;
      let t0 = Infinity;
      const waits = readers.map((r) =>
        r.request("GET", `${path}?offset=${encodeURIComponent(tail)}&live=long-poll`, "", null, { discardBody: true }).then(
          (res) => ({ res, t: performance.now() }),
          (err) => ({ err, t: performance.now() }),
        ),
      );
      await sleep(p.parkMs);
      t0 = performance.now();
      const w = await writer.request("POST", path, "Content-Type: application/octet-stream\r\n", body, { discardBody: true });
      const tw = performance.now();
      if (w.status < 200 || w.status > 299) {
        errors++;
        note(`append HTTP ${w.status}`);
      }
      const newTail = w.headers["stream-next-offset"];
      const results = await Promise.all(waits);
      const measured = round >= p.warmupRounds;
      if (measured) appendLat.add(tw - t0);
      for (const { res, err, t } of results) {
        if (err) {
          errors++;
          note(err.message);
          continue;
        }
        if (res.status === 204) {
          timeouts++;
          continue;
        }
        if (res.status !== 200) {
          errors++;
          note(`long-poll HTTP ${res.status}`);
          continue;
        }
        if (t < t0) early++; // answered before the append: the reader was not parked
        if (res.headers["stream-next-offset"] !== newTail) wrongOffset++;
        if (measured) lat.add(t - t0);
      }
      tail = newTail ?? tail;
      if (measured) rounds++;
    }
    const cpu = meter ? meter() : null;
    const s = lat.summary();
    return {
      waiters: p.waiters,
      crossInstance: writeUrl !== readUrl,
      rounds,
      wakeups: s.n,
      p50: s.p50,
      p99: s.p99,
      p999: s.p999,
      max: s.max,
      appendP50: appendLat.summary().p50,
      early,
      timeouts,
      wrongOffset,
      errors,
      errorSamples,
      serverCpuPct: cpu?.serverCpuPct,
      clientCpuPct: cpu?.clientCpuPct,
      otherCpuPct: cpu?.otherCpuPct,
      stealPct: cpu?.stealPct,
      windowS: cpu?.wallS,
    };
  } finally {
    writer.close();
    for (const r of readers) r.close();
  }
}
