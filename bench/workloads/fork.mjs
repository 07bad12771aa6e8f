// fork: fill one application/octet-stream stream to `mib` MiB of 64 KiB appends, then fork it at
// its tail and at its middle, `forks` times each, while a second connection sends HEADs to another
// stream back to back. Reports the slowest fork PUT (ms), the slowest HEAD meanwhile, the data
// directory's growth from the forks, the fork DELETE time, a plain create's time (the durable
// commit every write waits for), and checks that the middle fork reads
// the source's bytes across its fork point and its own append after it. CPU is measured over the
// forks, HEADs and deletes.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Conn } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";
import { fill } from "./catchup.mjs";

const token = (n) => `0000000000000000_${String(n).padStart(16, "0")}`;
const dirBytes = (dir) => (dir ? readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0) : 0);

/** p: { mib, forks, runId } */
export async function run(server, p) {
  const base = `/bench-fork/${p.runId}`;
  const conn = new Conn(server.url, { idleReconnectMs: 120_000 });
  const headConn = new Conn(server.url, { idleReconnectMs: 120_000 });
  try {
    const { total } = await fill(server, conn, `${base}-src`, { mib: p.mib, kind: "bin", chunkKiB: 64, fillConcurrency: 4 });
    const other = await conn.request("PUT", `${base}-other`, "Content-Type: text/plain\r\n", Buffer.from("x"));
    if (other.status !== 201) throw new Error(`create: HTTP ${other.status}`);
    const mid = Math.floor(total / 2 / 65536) * 65536;
    const before = dirBytes(server.dataDir);

    const meter = cpuMeter(server.cpuPids());
    let heads = true;
    let headMaxMs = 0;
    const headLoop = (async () => {
      while (heads) {
        const t = performance.now();
        const r = await headConn.request("HEAD", `${base}-other`, "", null, { discardBody: true });
        if (r.status !== 200) throw new Error(`HEAD: HTTP ${r.status}`);
        headMaxMs = Math.max(headMaxMs, performance.now() - t);
      }
    })();
    const forkMs = [];
    const deleteMs = [];
    const createMs = [];
    let grownBytes = 0;
    try {
      for (let i = 0; i < p.forks; i++) {
        for (const [name, at] of [[`tail${i}`, null], [`mid${i}`, mid]]) {
          const t = performance.now();
          const headers = `Stream-Forked-From: ${base}-src\r\n${at === null ? "" : `Stream-Fork-Offset: ${token(at)}\r\n`}`;
          const r = await conn.request("PUT", `${base}-${name}`, headers, null, { discardBody: true });
          forkMs.push(performance.now() - t);
          if (r.status !== 201) throw new Error(`fork: HTTP ${r.status}`);
        }
        // What any durable create costs here (its commit's sync): the floor under a fork's time.
        const t = performance.now();
        const plain = await conn.request("PUT", `${base}-plain${i}`, "Content-Type: application/octet-stream\r\n", null, { discardBody: true });
        createMs.push(performance.now() - t);
        if (plain.status !== 201) throw new Error(`create: HTTP ${plain.status}`);
        const own = await conn.request("POST", `${base}-mid${i}`, "Content-Type: application/octet-stream\r\n", Buffer.from("own"));
        if (own.status !== 204) throw new Error(`append to fork: HTTP ${own.status}`);
        const across = await conn.request("GET", `${base}-mid${i}?offset=${token(mid - 4)}`, "", null);
        const source = await conn.request("GET", `${base}-src?offset=${token(mid - 4)}&max_bytes=4`, "", null);
        if (source.bytes !== 4 || !Buffer.concat([source.body, Buffer.from("own")]).equals(across.body)) {
          throw new Error("the fork does not read its source's bytes across the fork point");
        }
      }
      grownBytes = dirBytes(server.dataDir) - before;
      for (let i = 0; i < p.forks; i++) {
        for (const name of [`tail${i}`, `mid${i}`]) {
          const t = performance.now();
          const r = await conn.request("DELETE", `${base}-${name}`, "", null, { discardBody: true });
          deleteMs.push(performance.now() - t);
          if (r.status !== 204) throw new Error(`delete fork: HTTP ${r.status}`);
        }
      }
    } finally {
      heads = false;
      await headLoop;
    }
    const cpu = meter();
    return {
      forkMs: Math.max(...forkMs),
      forkMedianMs: forkMs.sort((a, b) => a - b)[Math.floor(forkMs.length / 2)],
      createMs: Math.max(...createMs),
      headMaxMs,
      forkGrowthMiB: grownBytes / 2 ** 20,
      deleteMs: Math.max(...deleteMs),
      sourceBytes: total,
      serverCpuPct: cpu.serverCpuPct,
      clientCpuPct: cpu.clientCpuPct,
      otherCpuPct: cpu.otherCpuPct,
      stealPct: cpu.stealPct,
      windowS: cpu.wallS,
      serverRssKiB: server.rssKiB(),
    };
  } finally {
    conn.close();
    headConn.close();
  }
}
