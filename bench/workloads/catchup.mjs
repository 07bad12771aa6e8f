// catchup: fill one stream to `mib` MiB, then read it from offset=-1, following
// Stream-Next-Offset until Stream-Up-To-Date: true, `reads` times. Reports the best read in MB/s
// of response bodies (1 MB = 1e6 bytes), the response count, and checks that the offsets covered
// every stored byte.
//   kind "bin":  application/octet-stream, `chunkKiB` KiB appends
//   kind "json": application/json, 100-byte messages (99 bytes of compact JSON and the stored LF),
//                appended 5,000 to a request; read as JSON arrays (spec §4.2), 1 byte more per
//                response than the stored bytes it covers.
import { randomBytes } from "node:crypto";
import { Conn, forEachConcurrent } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";

const JSON_PER_POST = 5000;
const jsonMessage = (i) => `{"i":"${String(i).padStart(10, "0")}","p":"${"x".repeat(74)}"}`;

/** Fills `path` to `mib` MiB; returns the stored bytes and the appends. p: { mib, kind, chunkKiB, fillConcurrency } */
export async function fill(server, conn, path, p) {
  const type = p.kind === "json" ? "application/json" : "application/octet-stream";
  const c = await conn.request("PUT", path, `Content-Type: ${type}\r\n`, null);
  if (c.status < 200 || c.status > 299) throw new Error(`create: HTTP ${c.status}`);
  let bodies, total;
  if (p.kind === "json") {
    const messages = Math.ceil((p.mib * 2 ** 20) / 100);
    const posts = Math.ceil(messages / JSON_PER_POST);
    bodies = (i) => Buffer.from(`[${Array.from({ length: Math.min(JSON_PER_POST, messages - i * JSON_PER_POST) }, (_, j) => jsonMessage(i * JSON_PER_POST + j)).join(",")}]`);
    total = messages * 100;
    bodies = Array.from({ length: posts }, (_, i) => bodies(i));
  } else {
    const chunk = randomBytes(p.chunkKiB * 1024);
    const appends = Math.ceil((p.mib * 1024) / p.chunkKiB);
    bodies = Array.from({ length: appends }, () => chunk);
    total = appends * chunk.length;
  }
  let fillErrors = 0;
  await forEachConcurrent(bodies, p.fillConcurrency ?? 4, server.url, async (fc, body) => {
    const r = await fc.request("POST", path, `Content-Type: ${type}\r\n`, body, { discardBody: true });
    if (r.status < 200 || r.status > 299) fillErrors++;
  });
  if (fillErrors) throw new Error(`${fillErrors} fill appends failed`);
  return { total, appends: bodies.length };
}

/** p: { mib, kind, chunkKiB, reads, runId, fillConcurrency } */
export async function run(server, p) {
  const path = `/v1/stream/bench-${p.runId}-catchup`;
  const conn = new Conn(server.url, { idleReconnectMs: 60_000 });
  try {
    const f0 = performance.now();
    const { total, appends } = await fill(server, conn, path, p);
    const fillS = (performance.now() - f0) / 1000;

    const runs = [];
    for (let i = 0; i < p.reads; i++) {
      const meter = cpuMeter(server.cpuPids());
      const t0 = performance.now();
      let offset = "-1", bytes = 0, responses = 0, maxResponse = 0;
      for (;;) {
        const r = await conn.request("GET", `${path}?offset=${encodeURIComponent(offset)}`, "", null, { discardBody: true });
        if (r.status !== 200) throw new Error(`read at ${offset}: HTTP ${r.status}`);
        responses++;
        bytes += r.bytes;
        maxResponse = Math.max(maxResponse, r.bytes);
        const next = r.headers["stream-next-offset"];
        if (r.headers["stream-up-to-date"] === "true") break;
        if (!next || next === offset || responses > 1_000_000) throw new Error(`read made no progress at ${offset}`);
        offset = next;
      }
      const s = (performance.now() - t0) / 1000;
      const cpu = meter();
      // A JSON array response carries one byte more than the stored messages it holds (ursa), or
      // the POSTed arrays' bytes (the ceiling: 1 more per append); bytes count exactly otherwise.
      const most = p.kind === "json" ? total + responses + appends : total;
      if (bytes < total || bytes > most) throw new Error(`read ${bytes} bytes, expected ${total}${most > total ? ` to ${most}` : ""}`);
      runs.push({ MBps: bytes / 1e6 / s, seconds: s, responses, maxResponse, serverCpuPct: cpu.serverCpuPct, clientCpuPct: cpu.clientCpuPct, otherCpuPct: cpu.otherCpuPct, stealPct: cpu.stealPct });
    }
    const best = runs.reduce((a, b) => (b.MBps > a.MBps ? b : a));
    return {
      MBps: best.MBps,
      bytes: total,
      responses: best.responses,
      maxResponseBytes: best.maxResponse,
      readSeconds: best.seconds,
      allMBps: runs.map((r) => r.MBps),
      serverCpuPct: best.serverCpuPct,
      clientCpuPct: best.clientCpuPct,
      otherCpuPct: best.otherCpuPct,
      stealPct: best.stealPct,
      windowS: best.seconds,
      fillMBps: total / 1e6 / fillS,
      serverRssKiB: server.rssKiB(),
    };
  } finally {
    conn.close();
  }
}
