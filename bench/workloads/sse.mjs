// sse: N subscribers on one application/json stream (live=sse), one writer at a fixed rate
// (50 events/s) whose events carry their send time. Subscribers run in worker threads and
// measure delivery latency = receive time - send time on the process-wide monotonic clock.
// Reports delivery percentiles, missing/duplicate deliveries, and whether the writer held its rate.
import { Conn } from "../lib/http.mjs";
import { PHASE, startParts } from "../lib/pool.mjs";
import { cpuMeter } from "../lib/proc.mjs";
import { sseParser } from "../lib/sse-parser.mjs";
import { nowUs, Samples, sleep, totals } from "../lib/stats.mjs";

/** p: { subscribers, rate, durationMs, threads, runId, connectTimeoutMs } */
export async function run(server, p) {
  const name = `bench-${p.runId}-sse`;
  const path = `/v1/stream/${name}`;
  const writer = new Conn(server.url, { idleReconnectMs: 60_000 });
  try {
    const c = await writer.request("PUT", path, "Content-Type: application/json\r\n", null);
    if (c.status < 200 || c.status > 299) throw new Error(`create: HTTP ${c.status}`);
    const events = Math.max(1, Math.round((p.rate * p.durationMs) / 1000));
    const threads = Math.max(1, Math.min(p.threads, p.subscribers));
    const { phases, ready, done } = startParts(import.meta.url, "part", (index) => {
      let count = 0;
      for (let s = index; s < p.subscribers; s += threads) count++;
      return { url: server.url, path, count, events: warmupTotal(p) + Math.max(1, Math.round((p.rate * p.durationMs) / 1000)), connectTimeoutMs: p.connectTimeoutMs ?? 20_000 };
    }, threads);
    await ready; // every subscriber got its first control event
    phases.set(PHASE.WARMUP);

    // The writer: event k is due at start + k*interval; it never sends early, and a late POST
    // makes the next one go out at once (it does not skip events). Events sent during the
    // warm-up are delivered and checked but their latency is not recorded.
    const interval = 1000 / p.rate;
    const warmupEvents = Math.round((p.rate * (p.warmupMs ?? 0)) / 1000);
    const total = warmupEvents + events;
    const postLat = new Samples(total);
    let maxLagMs = 0, writerErrors = 0, meter = null, firstSend = 0, lastSend = 0;
    const pad = "x".repeat(48);
    const start = performance.now() + 20;
    for (let k = 0; k < total; k++) {
      if (k === warmupEvents) {
        phases.set(PHASE.MEASURE);
        meter = cpuMeter(server.cpuPids());
      }
      const due = start + k * interval;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const t0 = performance.now();
      if (k >= warmupEvents) {
        maxLagMs = Math.max(maxLagMs, t0 - due);
        if (k === warmupEvents) firstSend = t0;
        lastSend = t0;
      }
      const body = `{"t":${nowUs()},"i":${k},"p":"${pad}"}`;
      try {
        const r = await writer.request("POST", path, "Content-Type: application/json\r\n", body, { discardBody: true });
        if (r.status < 200 || r.status > 299) writerErrors++;
      } catch {
        writerErrors++;
      }
      if (k >= warmupEvents) postLat.add(performance.now() - t0);
    }
    // The rate actually achieved between the first and last measured send.
    const achievedRate = events > 1 ? (events - 1) / ((lastSend - firstSend) / 1000) : p.rate;
    // Let deliveries drain: until every subscriber has every event, at most drainMs.
    const drainUntil = performance.now() + (p.drainMs ?? 3000);
    while (performance.now() < drainUntil && phases.counter(1) < total * p.subscribers) await sleep(10);
    phases.set(PHASE.STOP);
    const cpu = meter();
    const parts = await done;
    const lat = Samples.merge(parts.map((r) => r.lat)).summary();
    const { received, missing, duplicates, outOfOrder, errors, connected, endedEarly, errorSamples } = totals(parts, [
      "received",
      "missing",
      "duplicates",
      "outOfOrder",
      "errors",
      "connected",
      "endedEarly",
    ]);
    const held = writerErrors === 0 && achievedRate >= 0.98 * p.rate;
    return {
      subscribers: p.subscribers,
      events,
      p50: lat.p50,
      p99: lat.p99,
      p999: lat.p999,
      max: lat.max,
      received,
      expected: total * p.subscribers,
      missing,
      duplicates,
      outOfOrder,
      errors,
      endedEarly,
      connected,
      errorSamples: errorSamples.slice(0, 5),
      writerRate: achievedRate,
      writerHeld: held,
      writerMaxLagMs: maxLagMs,
      writerErrors,
      writerPostP99: postLat.summary().p99,
      serverCpuPct: cpu.serverCpuPct,
      clientCpuPct: cpu.clientCpuPct,
      otherCpuPct: cpu.otherCpuPct,
      stealPct: cpu.stealPct,
      windowS: cpu.wallS,
    };
  } finally {
    writer.close();
  }
}

const warmupTotal = (p) => Math.round((p.rate * (p.warmupMs ?? 0)) / 1000);

/** Worker part: `count` subscribers, each on its own connection. */
export async function part(params, ctx) {
  const { url, path, count, events } = params;
  const lat = new Samples(Math.min(1 << 22, count * events + 16));
  let received = 0, duplicates = 0, outOfOrder = 0, errors = 0, connected = 0, endedEarly = 0;
  const errorSamples = [];
  const seenCounts = new Uint32Array(count);
  const conns = Array.from({ length: count }, () => new Conn(url, { idleReconnectMs: 3_600_000 }));
  let readyCount = 0;
  let markReady;
  const allReady = new Promise((r) => (markReady = r));
  const subs = conns.map((conn, si) => {
    let next = 0; // next expected event index
    let first = true;
    const onEvent = (type, data) => {
      if (type === "control") {
        if (first) {
          first = false;
          connected++;
          if (++readyCount === count) markReady();
        }
        return;
      }
      if (type !== "data") return;
      const t = nowUs();
      let msgs;
      try {
        msgs = JSON.parse(data);
      } catch {
        errors++;
        return;
      }
      for (const m of msgs) {
        if (ctx.phases.get() === PHASE.MEASURE) lat.add((t - m.t) / 1000);
        received++;
        if (m.i === next) next++;
        else if (m.i < next) {
          duplicates++;
          continue;
        } else {
          outOfOrder++;
          next = m.i + 1;
        }
        seenCounts[si]++;
        ctx.phases.add(1, 1);
      }
    };
    return conn
      .request("GET", `${path}?offset=-1&live=sse`, "Accept: text/event-stream\r\n", null, {
        onHead: (res) => {
          if (res.status !== 200) {
            errors++;
            if (errorSamples.length < 5) errorSamples.push(`subscribe HTTP ${res.status}`);
          }
        },
        onData: sseParser(onEvent),
      })
      .then(
        () => {
          // The server ended the response before we stopped.
          if (ctx.phases.get() < PHASE.STOP) {
            endedEarly++;
            if (errorSamples.length < 5) errorSamples.push(`subscriber ${si}: response ended early after ${seenCounts[si]} events`);
          }
        },
        (err) => {
          if (ctx.phases.get() < PHASE.STOP) {
            errors++;
            if (errorSamples.length < 5) errorSamples.push(`subscriber ${si}: ${err.message}`);
          }
        },
      );
  });
  // Connect in bounded time; a subscriber that never gets its first control event is an error.
  const timeout = sleep(params.connectTimeoutMs).then(() => "timeout");
  if ((await Promise.race([allReady, timeout])) === "timeout") {
    errors += count - readyCount;
    if (errorSamples.length < 5) errorSamples.push(`${count - readyCount} subscribers got no control event in ${params.connectTimeoutMs} ms`);
  }
  ctx.ready();
  // Stop when told to, or early once every subscriber has every event.
  while (ctx.phases.get() < PHASE.STOP) await sleep(20);
  for (const c of conns) c.close();
  await Promise.allSettled(subs);
  let missing = 0;
  for (let i = 0; i < count; i++) missing += Math.max(0, events - seenCounts[i]);
  return { lat: lat.export(), received, missing, duplicates, outOfOrder, errors, connected, endedEarly, errorSamples };
}
