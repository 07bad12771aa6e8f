// append-batch: messages/s of 100-byte JSON messages, C closed-loop writers on S streams.
//   via "batch":  ursa: POST …/append-batch with `frames` length-framed messages per request (the
//                 acks come back in the body); the reference, which has no append-batch: the same
//                 messages as one JSON array per request (a JSON array is one append of many
//                 messages there)
//   via "single": the same messages, one per request
// Afterwards every stream is read from -1 and verified: each writer's messages are exactly the
// ones it had acknowledged, in order, each once.
import { Conn, forEachConcurrent, headerLines } from "../lib/http.mjs";
import { measureWindow, PHASE, startParts } from "../lib/pool.mjs";
import { Samples, totals } from "../lib/stats.mjs";
import { jsonBody } from "./append.mjs";

const BUCKET = "bench-batch";

/** True for servers with Ursula's append-batch (ursa and its variants). */
const hasAppendBatch = (kind) => kind === "ursa" || kind.startsWith("ursa-");

/** p: { via, frames, streams, writers, warmupMs, durationMs, maxRequests, threads, runId } */
export async function run(server, p) {
  const batch = p.via === "batch";
  const framed = batch && hasAppendBatch(server.kind);
  const path = (i) => (hasAppendBatch(server.kind) ? `/${BUCKET}/${p.runId}-${i}` : `/v1/stream/bench-${p.runId}-batch-${i}`);
  const names = Array.from({ length: p.streams }, (_, i) => path(i));
  let createFailures = 0;
  await forEachConcurrent(names, 16, server.url, async (conn, name) => {
    const r = await conn.request("PUT", name, headerLines({ "Content-Type": "application/json" }), null);
    if (r.status < 200 || r.status > 299) createFailures++;
  });
  if (createFailures) throw new Error(`${createFailures} stream creations failed`);

  const threads = Math.max(1, Math.min(p.threads, p.writers));
  const perRequest = batch ? p.frames : 1;
  const { cpu, rss0, rss1, parts } = await measureWindow(server, p, startParts(import.meta.url, "part", (index) => {
    const writers = [];
    for (let w = index; w < p.writers; w += threads) writers.push({ id: w, path: names[w % p.streams] });
    return { url: server.url, writers, perRequest, framed, maxRequests: Math.ceil(p.maxRequests / threads) };
  }, threads));

  const lat = Samples.merge(parts.map((r) => r.lat));
  const { okRequests, non2xx, errors, totalNon2xx, badAcks, capped, errorSamples } = totals(parts, ["okRequests", "non2xx", "errors", "totalNon2xx", "badAcks"]);
  const acked = new Map();
  for (const r of parts) for (const [w, n] of Object.entries(r.acked)) acked.set(Number(w), n);
  const verify = await verifyStreams(server.url, names, p, acked);
  const s = lat.summary();
  const messages = okRequests * perRequest;
  return {
    messagesPerS: messages / cpu.wallS,
    requestsPerS: okRequests / cpu.wallS,
    messages,
    perRequest,
    framed,
    p50: s.p50,
    p99: s.p99,
    non2xx,
    errors,
    totalNon2xx,
    badAcks,
    errorSamples: errorSamples.slice(0, 5),
    verified: verify.ok,
    verify,
    serverCpuUsPerMessage: messages ? (cpu.serverCpuS * 1e6) / messages : NaN,
    serverCpuPct: cpu.serverCpuPct,
    clientCpuPct: cpu.clientCpuPct,
    otherCpuPct: cpu.otherCpuPct,
    stealPct: cpu.stealPct,
    serverRssKiB: [rss0, rss1],
    windowS: cpu.wallS,
    capped,
  };
}

/** One request's body: `n` consecutive messages of writer `w` from `seq`. */
function body(w, seq, n, framed) {
  if (!framed) return n === 1 ? jsonBody(w, seq) : `[${Array.from({ length: n }, (_, i) => jsonBody(w, seq + i)).join(",")}]`;
  const out = Buffer.allocUnsafe(n * 104);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const len = out.write(jsonBody(w, seq + i), at + 4, "latin1");
    out.writeUInt32BE(len, at);
    at += 4 + len;
  }
  return out.subarray(0, at);
}

/** Worker part: closed-loop writers, one request in flight each. */
export async function part(params, ctx) {
  const { url, writers, perRequest, framed, maxRequests } = params;
  const lat = new Samples(1 << 14);
  let okRequests = 0, non2xx = 0, errors = 0, totalNon2xx = 0, totalReq = 0, badAcks = 0, capped = false;
  const errorSamples = [];
  const acked = {};
  const conns = writers.map(() => new Conn(url, { idleReconnectMs: 60_000 }));
  await Promise.all(conns.map((c) => c.connect()));
  ctx.ready();
  await ctx.phases.atLeast(PHASE.WARMUP);
  const headers = "Content-Type: application/json\r\n";
  await Promise.all(
    writers.map(async (w, i) => {
      const conn = conns[i];
      const target = framed ? `${w.path}/append-batch` : w.path;
      let seq = 0;
      acked[w.id] = 0;
      for (;;) {
        if (ctx.phases.get() >= PHASE.STOP) break;
        if (totalReq >= maxRequests) {
          capped = true;
          break;
        }
        totalReq++;
        const t0 = performance.now();
        let res;
        try {
          res = await conn.request("POST", target, headers, body(w.id, seq, perRequest, framed), { discardBody: !framed });
        } catch (err) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(String(err?.message ?? err));
          // The request may or may not have landed; verification would not know: stop this writer.
          break;
        }
        const inWindow = ctx.phases.get() === PHASE.MEASURE;
        if (res.status >= 200 && res.status < 300) {
          // Each frame's ack must say 204; anything else is a frame that did not land.
          if (framed) {
            const acks = JSON.parse(res.body.toString("utf8"));
            if (acks.length !== perRequest || acks.some((a) => a.status !== 204)) {
              badAcks++;
              if (errorSamples.length < 5) errorSamples.push(`acks: ${res.body.toString("utf8").slice(0, 200)}`);
              break;
            }
          }
          seq += perRequest;
          acked[w.id] = seq;
          if (inWindow) {
            okRequests++;
            lat.add(performance.now() - t0);
          }
        } else {
          totalNon2xx++;
          if (inWindow) non2xx++;
          if (errorSamples.length < 5) errorSamples.push(`HTTP ${res.status} ${JSON.stringify(res.headers)}`);
          break;
        }
      }
    }),
  );
  for (const c of conns) c.close();
  return { lat: lat.export(), okRequests, non2xx, errors, totalNon2xx, badAcks, acked, capped, errorSamples };
}

/** Reads every stream from -1: each writer's messages must be seq 0..acked-1, in order, once. */
async function verifyStreams(url, names, p, acked) {
  const problems = [];
  const seen = new Map();
  const conn = new Conn(url, { idleReconnectMs: 60_000 });
  try {
    for (let i = 0; i < names.length; i++) {
      let offset = "-1";
      for (let page = 0; ; page++) {
        const r = await conn.request("GET", `${names[i]}?offset=${encodeURIComponent(offset)}`, "", null);
        if (r.status !== 200) {
          problems.push(`${names[i]}: read at ${offset}: HTTP ${r.status}`);
          break;
        }
        for (const m of JSON.parse(r.body.toString("utf8"))) {
          const next = seen.get(m.w) ?? 0;
          if (m.s !== next && problems.length < 10) problems.push(`writer ${m.w}: message ${m.s} where ${next} was due`);
          if (m.w % p.streams !== i && problems.length < 10) problems.push(`writer ${m.w} on the wrong stream`);
          seen.set(m.w, m.s + 1);
        }
        const next = r.headers["stream-next-offset"];
        if (r.headers["stream-up-to-date"] === "true") break;
        if (!next || next === offset || page > 1_000_000) {
          problems.push(`${names[i]}: no progress at ${offset}`);
          break;
        }
        offset = next;
      }
    }
  } finally {
    conn.close();
  }
  let messages = 0;
  for (const [w, n] of acked) {
    messages += n;
    if ((seen.get(w) ?? 0) !== n && problems.length < 10) problems.push(`writer ${w}: ${seen.get(w) ?? 0} messages in the log, ${n} acknowledged`);
  }
  return { ok: problems.length === 0, messages, problems };
}
