// append: S streams × C closed-loop writers. Writer i appends to stream i mod S, one request in
// flight per writer, on its own keep-alive connection.
//   kind "bin":  256 B application/octet-stream bodies with Producer-Id/Epoch/Seq (expects 200)
//   kind "json": 100 B application/json object bodies, no producer headers (expects 204)
// Reports appends/s, latency percentiles, non-2xx, server CPU per append and client CPU.
// Against the "fsync-ceiling" kind there is no server: one process appends records of the same
// size to a plain file, each followed by fdatasync (lib/fsync-ceiling.mjs), and its syncs count
// as appends.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Conn, forEachConcurrent, headerLines } from "../lib/http.mjs";
import { measureWindow, PHASE, startParts } from "../lib/pool.mjs";
import { pgbenchCeiling } from "../lib/pg.mjs";
import { cpuMeter } from "../lib/proc.mjs";
import { Samples, sleep, totals } from "../lib/stats.mjs";

export const CONTENT_TYPE = { bin: "application/octet-stream", json: "application/json" };

/** A 100-byte JSON object (exactly, for any seq < 1e12). */
export function jsonBody(writer, seq) {
  const head = `{"w":${writer},"s":${seq},"p":"`;
  return head + "x".repeat(100 - head.length - 2) + `"}`;
}

/**
 * @param server  a started server (servers.mjs)
 * @param p { kind, streams, writers, warmupMs, durationMs, maxRequests, threads, runId }
 */
export async function run(server, p) {
  if (server.kind === "fsync-ceiling") return syncCeiling(server.dataDir, p);
  if (server.kind === "pg-ceiling") return pgCeiling(p, "update+insert");
  if (server.kind === "pg-insert-ceiling") return pgCeiling(p, "insert");
  const names = Array.from({ length: p.streams }, (_, i) => `bench-${p.runId}-${p.kind}-${i}`);
  // Create the streams (setup traffic, not measured).
  let createFailures = 0;
  await forEachConcurrent(names, 16, server.url, async (conn, name) => {
    const r = await conn.request("PUT", `/v1/stream/${name}`, headerLines({ "Content-Type": CONTENT_TYPE[p.kind] }), null);
    if (r.status < 200 || r.status > 299) createFailures++;
  });
  if (createFailures) throw new Error(`${createFailures} stream creations failed`);

  const threads = Math.max(1, Math.min(p.threads, p.writers));
  const { cpu, rss0, rss1, parts } = await measureWindow(server, p, startParts(import.meta.url, "part", (index) => {
    const writers = [];
    for (let w = index; w < p.writers; w += threads) writers.push({ id: w, path: `/v1/stream/${names[w % p.streams]}` });
    return { url: server.url, kind: p.kind, runId: p.runId, writers, maxRequests: Math.ceil(p.maxRequests / threads) };
  }, threads));

  const lat = Samples.merge(parts.map((r) => r.lat));
  const { ok, non2xx, errors, totalReq, totalNon2xx, capped, errorSamples } = totals(parts, ["ok", "non2xx", "errors", "totalReq", "totalNon2xx"]);
  const statuses = {};
  for (const r of parts) for (const [k, v] of Object.entries(r.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  const s = lat.summary();
  return {
    appendsPerS: ok / cpu.wallS,
    ok,
    p50: s.p50,
    p99: s.p99,
    p999: s.p999,
    max: s.max,
    non2xx,
    errors,
    totalReq,
    totalNon2xx,
    statuses,
    errorSamples: errorSamples.slice(0, 5),
    serverCpuUsPerAppend: ok ? (cpu.serverCpuS * 1e6) / ok : NaN,
    serverCpuPct: cpu.serverCpuPct,
    clientCpuPct: cpu.clientCpuPct,
    otherCpuPct: cpu.otherCpuPct,
    stealPct: cpu.stealPct,
    clientCpuUsPerReq: ok ? (cpu.clientCpuS * 1e6) / ok : NaN,
    serverRssKiB: [rss0, rss1],
    windowS: cpu.wallS,
    capped,
  };
}

/** The bytes one append of this kind carries. */
const RECORD_BYTES = { bin: 256, json: 100 };

/** The fdatasync ceiling, run in `dir`, with the CPU of its process metered like a server's. */
async function syncCeiling(dir, p) {
  const script = fileURLToPath(new URL("../lib/fsync-ceiling.mjs", import.meta.url));
  const child = spawn(process.execPath, [script, dir, String(RECORD_BYTES[p.kind]), String(p.warmupMs), String(p.durationMs)], { stdio: ["pipe", "pipe", "pipe"] });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    let out = "";
    let meter = null;
    const result = await new Promise((resolve, reject) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (meter === null && out.includes("measure\n")) meter = cpuMeter(child.pid);
        const last = out.slice(out.indexOf("measure\n") + 8);
        if (meter && last.endsWith("\n")) resolve({ line: JSON.parse(last), cpu: meter() });
      });
      exited.then((code) => reject(new Error(`fsync-ceiling.mjs exited (${code}) before its result: ${err}`)));
    });
    const { line: r, cpu } = result;
    return ceilingResult(p, { done: r.syncs, perS: r.syncs / r.wallS, lat: r, failed: 0, cpu });
  } finally {
    child.stdin.end();
    await exited;
  }
}

/**
 * The PostgreSQL ceiling: pgbench, one transaction per append, a client per writer. Its server
 * CPU misses the backends, which exit with pgbench's connections before the window is read.
 */
async function pgCeiling(p, shape) {
  const r = await pgbenchCeiling({ clients: p.writers, streams: p.streams, bytes: RECORD_BYTES[p.kind], warmupMs: p.warmupMs, durationMs: p.durationMs, shape });
  return ceilingResult(p, { done: r.transactions, perS: r.tps, lat: r.latency, failed: r.failed, cpu: r.cpu });
}

/** A ceiling's figures (no HTTP: its records or transactions stand in for appends), shaped as an append run's. */
function ceilingResult(p, { done, perS, lat, failed, cpu }) {
  return {
    appendsPerS: perS,
    ok: done,
    p50: lat.p50,
    p99: lat.p99,
    p999: lat.p999,
    max: lat.max,
    meanMs: lat.mean,
    non2xx: failed,
    errors: 0,
    totalReq: done,
    totalNon2xx: failed,
    statuses: {},
    errorSamples: [],
    serverCpuUsPerAppend: (cpu.serverCpuS * 1e6) / done,
    serverCpuPct: cpu.serverCpuPct,
    clientCpuPct: cpu.clientCpuPct,
    otherCpuPct: cpu.otherCpuPct,
    stealPct: cpu.stealPct,
    clientCpuUsPerReq: NaN,
    windowS: cpu.wallS,
    recordBytes: RECORD_BYTES[p.kind],
    capped: false,
  };
}

/** Worker part: run the closed-loop writers given in params.writers. */
export async function part(params, ctx) {
  const { url, kind, writers, maxRequests } = params;
  const lat = new Samples(1 << 16);
  const statuses = {};
  let ok = 0, non2xx = 0, errors = 0, totalReq = 0, totalNon2xx = 0, capped = false;
  const errorSamples = [];
  const conns = writers.map(() => new Conn(url, { idleReconnectMs: 60_000 }));
  await Promise.all(conns.map((c) => c.connect()));
  ctx.ready();
  await ctx.phases.atLeast(PHASE.WARMUP);

  await Promise.all(
    writers.map(async (w, i) => {
      const conn = conns[i];
      const bin = kind === "bin" ? randomBytes(256) : null;
      const ctLine = `Content-Type: ${CONTENT_TYPE[kind]}\r\n`;
      const producer = `Producer-Id: w${w.id}-${params.runId}\r\nProducer-Epoch: 0\r\n`;
      let seq = 0;
      for (;;) {
        const before = ctx.phases.get();
        if (before >= PHASE.STOP) break;
        if (totalReq >= maxRequests) {
          capped = true;
          break;
        }
        totalReq++;
        const headers = kind === "bin" ? `${ctLine}${producer}Producer-Seq: ${seq}\r\n` : ctLine;
        const body = kind === "bin" ? bin : jsonBody(w.id, seq);
        const t0 = performance.now();
        let res;
        try {
          res = await conn.request("POST", w.path, headers, body, { discardBody: true });
        } catch (err) {
          errors++;
          if (errorSamples.length < 5) errorSamples.push(String(err?.message ?? err));
          await sleep(5);
          continue;
        }
        const t1 = performance.now();
        const inWindow = ctx.phases.get() === PHASE.MEASURE;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status >= 200 && res.status < 300) {
          seq++;
          if (inWindow) {
            ok++;
            lat.add(t1 - t0);
          }
        } else {
          totalNon2xx++;
          if (inWindow) non2xx++;
          if (errorSamples.length < 5) errorSamples.push(`HTTP ${res.status} ${JSON.stringify(res.headers)}`);
          if (res.status === 409 && res.headers["producer-expected-seq"]) seq = Number(res.headers["producer-expected-seq"]);
        }
      }
    }),
  );
  for (const c of conns) c.close();
  return { lat: lat.export(), ok, non2xx, errors, totalReq, totalNon2xx, statuses, capped, errorSamples };
}
