// catchup: fill one application/octet-stream stream to `mib` MiB, then read it from offset=-1,
// following Stream-Next-Offset until Stream-Up-To-Date: true, `reads` times. Reports the best
// read in MB/s (1 MB = 1e6 bytes), the response count, and checks the byte count.
import { randomBytes } from "node:crypto";
import { Conn, forEachConcurrent } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";

/** p: { mib, chunkKiB, reads, runId, fillConcurrency } */
export async function run(server, p) {
  const path = `/v1/stream/bench-${p.runId}-catchup`;
  const conn = new Conn(server.url, { idleReconnectMs: 60_000 });
  try {
    const c = await conn.request("PUT", path, "Content-Type: application/octet-stream\r\n", null);
    if (c.status < 200 || c.status > 299) throw new Error(`create: HTTP ${c.status}`);
    const chunk = randomBytes(p.chunkKiB * 1024);
    const appends = Math.ceil((p.mib * 1024) / p.chunkKiB);
    const total = appends * chunk.length;
    const f0 = performance.now();
    let fillErrors = 0;
    await forEachConcurrent(Array.from({ length: appends }), p.fillConcurrency ?? 4, server.url, async (fc) => {
      const r = await fc.request("POST", path, "Content-Type: application/octet-stream\r\n", chunk, { discardBody: true });
      if (r.status < 200 || r.status > 299) fillErrors++;
    });
    if (fillErrors) throw new Error(`${fillErrors} fill appends failed`);
    const fillS = (performance.now() - f0) / 1000;

    const runs = [];
    for (let i = 0; i < p.reads; i++) {
      const meter = cpuMeter(server.pid);
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
      if (bytes !== total) throw new Error(`read ${bytes} bytes, expected ${total}`);
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
