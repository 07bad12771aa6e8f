// cas: the prefix-count compare-and-set recipe (Ursula v0.9.0, Conditional Writes), closed loop.
// Each writer, per commit attempt:
//   1. reads from where it stopped (consistency=leader), following Stream-Next-Offset until
//      Stream-Up-To-Date: true, counting events: n = all events in the log so far;
//   2. POSTs a commit of 1–3 events as one JSON array with Stream-Seq = n zero-padded to 20;
//   3. on 409 it goes back to 1 (reads on and retries with the new count).
// With readEach false, a writer that committed skips step 1 next time: it adds its own events to
// n and reads on from the offset its commit's answer gave only after a 409. Alone on its stream,
// it then commits back to back, as a writer that owns a stream would.
// Every event records its writer, attempt and the Stream-Seq it was sent with, so afterwards
// every log is read back and verified: each commit's Stream-Seq equals the events before it,
// its events are contiguous, and exactly the acknowledged commits are present.
import { Conn, forEachConcurrent, headerLines } from "../lib/http.mjs";
import { measureWindow, PHASE, startParts } from "../lib/pool.mjs";
import { Samples, sleep, totals } from "../lib/stats.mjs";

const pad20 = (n) => String(n).padStart(20, "0");

/** p: { streams, writers, readEach, warmupMs, durationMs, maxRequests, runId, threads } */
export async function run(server, p) {
  const names = Array.from({ length: p.streams }, (_, i) => `bench-${p.runId}-cas-${i}`);
  await forEachConcurrent(names, 8, server.url, async (conn, name) => {
    // No Stream-Seq on the PUT, so the first commit's 0 is accepted (recipe step 1).
    const r = await conn.request("PUT", `/v1/stream/${name}`, "Content-Type: application/json\r\n", null);
    if (r.status < 200 || r.status > 299) throw new Error(`create ${name}: HTTP ${r.status}`);
  });
  const threads = Math.max(1, Math.min(p.threads, p.writers));
  const { cpu, parts } = await measureWindow(server, p, startParts(import.meta.url, "part", (index) => {
    const writers = [];
    for (let w = index; w < p.writers; w += threads) writers.push({ id: w, path: `/v1/stream/${names[w % p.streams]}` });
    return { url: server.url, writers, readEach: p.readEach !== false, maxRequests: Math.ceil(p.maxRequests / threads) };
  }, threads));

  const { commits, conflicts, conflictsNoLastSeq, errors, reads, totalCommits, capped, errorSamples } = totals(parts, [
    "commits",
    "conflicts",
    "conflictsNoLastSeq",
    "errors",
    "reads",
    "totalCommits",
  ]);
  const acked = new Map(); // "w:c" -> { n, k }
  const unknown = new Set(); // attempts whose outcome was lost (connection error)
  for (const r of parts) {
    for (const [w, c, n, k] of r.acked) acked.set(`${w}:${c}`, { n, k });
    for (const key of r.unknown) unknown.add(key);
  }
  const lat = Samples.merge(parts.map((r) => r.lat)).summary();
  const verify = await verifyLogs(server.url, names, acked, unknown);
  return {
    commitsPerS: commits / cpu.wallS,
    commits,
    conflicts,
    conflictRate: commits + conflicts ? conflicts / (commits + conflicts) : 0,
    conflictsNoLastSeq,
    readsPerCommit: totalCommits ? reads / totalCommits : NaN,
    errors,
    errorSamples: errorSamples.slice(0, 5),
    p50: lat.p50,
    p99: lat.p99,
    max: lat.max,
    serverCpuPct: cpu.serverCpuPct,
    clientCpuPct: cpu.clientCpuPct,
    otherCpuPct: cpu.otherCpuPct,
    stealPct: cpu.stealPct,
    windowS: cpu.wallS,
    capped,
    verified: verify.ok,
    verify,
  };
}

/** Read every log from -1 and check the prefix-count invariant and the acknowledged set. */
export async function verifyLogs(url, names, acked, unknown) {
  const problems = [];
  let events = 0, commitsSeen = 0;
  const seen = new Set();
  const conn = new Conn(url);
  try {
    for (const name of names) {
      const log = await readAll(conn, `/v1/stream/${name}`);
      events += log.length;
      let p = 0;
      while (p < log.length) {
        const e = log[p];
        const key = `${e.w}:${e.c}`;
        if (e.i !== 0) {
          problems.push(`${name}@${p}: commit ${key} starts at element ${e.i}`);
          p++;
          continue;
        }
        if (e.n !== p) problems.push(`${name}@${p}: commit ${key} carried Stream-Seq ${e.n} but ${p} events precede it`);
        for (let j = 0; j < e.k; j++) {
          const f = log[p + j];
          if (!f || f.w !== e.w || f.c !== e.c || f.i !== j) {
            problems.push(`${name}@${p + j}: commit ${key} is not contiguous`);
            break;
          }
        }
        if (seen.has(key)) problems.push(`${name}@${p}: commit ${key} appears twice`);
        seen.add(key);
        const a = acked.get(key);
        if (!a && !unknown.has(key)) problems.push(`${name}@${p}: commit ${key} is in the log but was never acknowledged`);
        if (a && (a.n !== e.n || a.k !== e.k)) problems.push(`${name}@${p}: commit ${key} differs from what was acknowledged`);
        commitsSeen++;
        p += Math.max(1, e.k);
      }
    }
  } finally {
    conn.close();
  }
  for (const key of acked.keys()) if (!seen.has(key)) problems.push(`acknowledged commit ${key} is missing from the log`);
  return { ok: problems.length === 0, streams: names.length, events, commits: commitsSeen, acked: acked.size, problems: problems.slice(0, 10), problemCount: problems.length };
}

/** Catch-up read of a JSON stream from -1 to the tail, following Stream-Next-Offset. */
export async function readAll(conn, path) {
  const out = [];
  let offset = "-1";
  for (let guard = 0; guard < 100_000; guard++) {
    const r = await conn.request("GET", `${path}?offset=${encodeURIComponent(offset)}&consistency=leader`, "", null);
    if (r.status !== 200) throw new Error(`GET ${path} offset=${offset}: HTTP ${r.status}`);
    const arr = JSON.parse(r.body.toString("utf8"));
    for (const x of arr) out.push(x);
    const next = r.headers["stream-next-offset"];
    if (r.headers["stream-up-to-date"] === "true") return out;
    if (!next || next === offset) throw new Error(`GET ${path}: no progress at ${offset}`);
    offset = next;
  }
  throw new Error(`GET ${path}: too many pages`);
}

/** Worker part: the writers in params.writers, each on its own connection. */
export async function part(params, ctx) {
  const { url, writers, readEach, maxRequests } = params;
  const lat = new Samples(1 << 14);
  let commits = 0, conflicts = 0, conflictsNoLastSeq = 0, errors = 0, reads = 0, totalCommits = 0, requests = 0, capped = false;
  const errorSamples = [];
  const acked = [];
  const unknown = [];
  const conns = writers.map(() => new Conn(url, { idleReconnectMs: 60_000 }));
  await Promise.all(conns.map((c) => c.connect()));
  ctx.ready();
  await ctx.phases.atLeast(PHASE.WARMUP);
  const note = (s) => errorSamples.length < 5 && errorSamples.push(s);

  await Promise.all(
    writers.map(async (w, wi) => {
      const conn = conns[wi];
      let offset = "-1";
      let n = 0;
      let attempt = 0;
      let counted = false;
      let rnd = (w.id + 1) * 2654435761;
      outer: while (ctx.phases.get() < PHASE.STOP) {
        const t0 = performance.now();
        // 1. Read to the tail, unless the last commit told this writer where the tail is.
        while (!counted) {
          if (++requests > maxRequests) {
            capped = true;
            break outer;
          }
          let r;
          try {
            r = await conn.request("GET", `${w.path}?offset=${encodeURIComponent(offset)}&consistency=leader`, "", null);
          } catch (err) {
            errors++;
            note(`read: ${err.message}`);
            await sleep(5);
            continue;
          }
          reads++;
          if (r.status !== 200) {
            errors++;
            note(`read HTTP ${r.status}`);
            await sleep(5);
            continue;
          }
          n += JSON.parse(r.body.toString("utf8")).length;
          offset = r.headers["stream-next-offset"] ?? offset;
          if (r.headers["stream-up-to-date"] === "true") break;
        }
        // 2. Commit 1–3 events with Stream-Seq = n.
        if (!readEach && requests >= maxRequests) {
          capped = true;
          break;
        }
        rnd = (Math.imul(rnd, 1103515245) + 12345) >>> 0;
        const k = 1 + ((rnd >>> 16) % 3);
        const c = attempt++;
        const events = [];
        for (let i = 0; i < k; i++) events.push(`{"w":${w.id},"c":${c},"i":${i},"k":${k},"n":${n},"op":"step-${c}-${i}"}`);
        let r;
        totalCommits++;
        requests++;
        try {
          r = await conn.request("POST", w.path, `Content-Type: application/json\r\nStream-Seq: ${pad20(n)}\r\n`, `[${events.join(",")}]`, { discardBody: true });
        } catch (err) {
          errors++;
          unknown.push(`${w.id}:${c}`);
          note(`commit: ${err.message}`);
          await sleep(5);
          continue;
        }
        const inWindow = ctx.phases.get() === PHASE.MEASURE;
        if (r.status >= 200 && r.status < 300) {
          acked.push([w.id, c, n, k]);
          const next = r.headers["stream-next-offset"];
          if (!readEach && next !== undefined) {
            n += k;
            offset = next;
            counted = true;
          }
          if (inWindow) {
            commits++;
            lat.add(performance.now() - t0);
          }
        } else if (r.status === 409) {
          counted = false;
          if (inWindow) conflicts++;
          if (r.headers["stream-last-seq"] === undefined) conflictsNoLastSeq++;
          // 3. Another writer won: read on from `offset` and retry with the new count.
        } else {
          counted = false;
          errors++;
          note(`commit HTTP ${r.status} ${JSON.stringify(r.headers)}`);
          await sleep(5);
        }
      }
    }),
  );
  for (const c of conns) c.close();
  return { lat: lat.export(), commits, conflicts, conflictsNoLastSeq, errors, reads, totalCommits, capped, errorSamples, acked, unknown };
}
