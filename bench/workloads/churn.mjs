// churn: memory must stay flat when streams are deleted and recreated in a loop.
// Each cycle: PUT a stream, append `appends` × `appendKiB` KiB, read it back from -1, DELETE it.
// `concurrency` connections run cycles over a small set of reused names. Server RSS is sampled
// after a warm-up and then after each quarter of the cycles (after a short settle pause).
import { randomBytes } from "node:crypto";
import { Conn } from "../lib/http.mjs";
import { sleep } from "../lib/stats.mjs";

/** p: { cycles, warmupCycles, appends, appendKiB, concurrency, runId, settleMs } */
export async function run(server, p) {
  const body = randomBytes(p.appendKiB * 1024);
  const conns = Array.from({ length: p.concurrency }, () => new Conn(server.url, { idleReconnectMs: 60_000 }));
  let errors = 0, cyclesDone = 0;
  const errorSamples = [];
  const note = (s) => errorSamples.length < 5 && errorSamples.push(s);
  const ok = (r, what) => {
    if (r.status < 200 || r.status > 299) {
      errors++;
      note(`${what}: HTTP ${r.status}`);
      return false;
    }
    return true;
  };
  async function cycles(n) {
    let next = 0;
    await Promise.all(
      conns.map(async (conn, ci) => {
        while (next < n) {
          const i = next++;
          const path = `/v1/stream/bench-${p.runId}-churn-${ci}-${i % 4}`;
          if (!ok(await conn.request("PUT", path, "Content-Type: application/octet-stream\r\n", null), "PUT")) continue;
          for (let a = 0; a < p.appends; a++) ok(await conn.request("POST", path, "Content-Type: application/octet-stream\r\n", body, { discardBody: true }), "POST");
          ok(await conn.request("GET", `${path}?offset=-1`, "", null, { discardBody: true }), "GET");
          ok(await conn.request("DELETE", path, "", null), "DELETE");
          cyclesDone++;
        }
      }),
    );
  }
  try {
    const t0 = performance.now();
    await cycles(p.warmupCycles);
    await sleep(p.settleMs);
    const rss = [server.rssKiB()];
    const quarter = Math.ceil(p.cycles / 4);
    for (let q = 0; q < 4; q++) {
      await cycles(quarter);
      await sleep(p.settleMs);
      rss.push(server.rssKiB());
    }
    const before = rss[0], after = rss[rss.length - 1];
    const growth = after - before;
    return {
      cycles: cyclesDone - p.warmupCycles,
      cyclesPerS: cyclesDone / ((performance.now() - t0) / 1000),
      rssBeforeMiB: before / 1024,
      rssAfterMiB: after / 1024,
      rssGrowthMiB: growth / 1024,
      rssSeriesMiB: rss.map((k) => Math.round(k / 102.4) / 10),
      // Flat: no more than 10% or 8 MiB above the warmed-up baseline, whichever is larger.
      flat: growth <= Math.max(8 * 1024, before * 0.1),
      errors,
      errorSamples,
    };
  } finally {
    for (const c of conns) c.close();
  }
}
