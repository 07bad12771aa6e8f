// bootstrap: one binary stream whose bootstrap answer is about `snapshotMiB` + `updatesMiB` MiB
// (a snapshot of `snapshotMiB`, then `updatesMiB` of 64 KiB messages after it), fetched `reads`
// times. Reports the best read in MB/s (1 MB = 1e6 bytes) and the server's RSS growth: the peak
// of its VmRSS, sampled every 20 ms during each read, above its value just before. One more,
// untimed read keeps the body and verifies it: exact multipart framing, the snapshot part equal
// to the bytes published, one part per message.
import { createHash, randomBytes } from "node:crypto";
import { Conn, forEachConcurrent } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";

const BUCKET = "bench-boot";

/** p: { snapshotMiB, updatesMiB, messageKiB, reads, runId } */
export async function run(server, p) {
  const path = `/${BUCKET}/${p.runId}`;
  const conn = new Conn(server.url, { idleReconnectMs: 120_000 });
  try {
    const ct = "Content-Type: application/octet-stream\r\n";
    const c = await conn.request("PUT", path, ct, Buffer.from("first"));
    if (c.status !== 201) throw new Error(`create: HTTP ${c.status}`);
    const snapshot = randomBytes(p.snapshotMiB * 2 ** 20);
    const published = await conn.request("PUT", `${path}/snapshot/5`, ct, snapshot);
    if (published.status !== 204) throw new Error(`snapshot: HTTP ${published.status} ${published.body}`);
    const message = randomBytes(p.messageKiB * 1024);
    const count = Math.ceil((p.updatesMiB * 1024) / p.messageKiB);
    let fillErrors = 0;
    await forEachConcurrent(Array.from({ length: count }), 4, server.url, async (fc) => {
      const r = await fc.request("POST", path, ct, message, { discardBody: true });
      if (r.status !== 204) fillErrors++;
    });
    if (fillErrors) throw new Error(`${fillErrors} appends failed`);

    const runs = [];
    for (let i = 0; i < p.reads; i++) {
      const rss0 = server.rssKiB();
      let peak = rss0;
      const sampler = setInterval(() => (peak = Math.max(peak, server.rssKiB())), 20);
      const meter = cpuMeter(server.cpuPids());
      const t0 = performance.now();
      let r;
      try {
        r = await conn.request("GET", `${path}/bootstrap`, "", null, { discardBody: true });
      } finally {
        clearInterval(sampler);
      }
      const s = (performance.now() - t0) / 1000;
      const cpu = meter();
      peak = Math.max(peak, server.rssKiB());
      if (r.status !== 200) throw new Error(`bootstrap: HTTP ${r.status}`);
      const expected = answerBytes(r.headers["content-type"], snapshot.length, count, message.length);
      if (r.bytes !== expected) throw new Error(`bootstrap: ${r.bytes} bytes, expected ${expected}`);
      runs.push({ MBps: r.bytes / 1e6 / s, bytes: r.bytes, seconds: s, rssGrowthMiB: (peak - rss0) / 1024, ...pick(cpu) });
    }
    const verify = await verifyBootstrap(conn, path, snapshot, count, message.length);
    const best = runs.reduce((a, b) => (b.MBps > a.MBps ? b : a));
    return {
      MBps: best.MBps,
      bytes: best.bytes,
      readSeconds: best.seconds,
      allMBps: runs.map((x) => x.MBps),
      rssGrowthMiB: Math.max(...runs.map((x) => x.rssGrowthMiB)),
      allRssGrowthMiB: runs.map((x) => x.rssGrowthMiB),
      verified: verify.ok,
      verify,
      serverCpuPct: best.serverCpuPct,
      clientCpuPct: best.clientCpuPct,
      otherCpuPct: best.otherCpuPct,
      stealPct: best.stealPct,
      windowS: best.seconds,
      serverRssKiB: server.rssKiB(),
    };
  } finally {
    conn.close();
  }
}

/** The exact length of a bootstrap answer: a snapshot part and `count` message parts, all octet-stream. */
function answerBytes(contentType, snapshotBytes, count, messageBytes) {
  const boundary = /boundary=(\S+)/.exec(contentType ?? "")?.[1] ?? "";
  const head = `--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`.length;
  return head + snapshotBytes + 2 + count * (head + messageBytes + 2) + boundary.length + 6;
}

const pick = (cpu) => ({ serverCpuPct: cpu.serverCpuPct, clientCpuPct: cpu.clientCpuPct, otherCpuPct: cpu.otherCpuPct, stealPct: cpu.stealPct });

async function verifyBootstrap(conn, path, snapshot, count, messageBytes) {
  const problems = [];
  const r = await conn.request("GET", `${path}/bootstrap`, "", null);
  const boundary = /boundary=(\S+)/.exec(r.headers["content-type"] ?? "")?.[1];
  if (!boundary) return { ok: false, problems: [`no boundary in ${r.headers["content-type"]}`] };
  const head = Buffer.from(`--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const body = r.body;
  if (!body.subarray(0, head.length).equals(head)) problems.push("the body does not open with the snapshot part");
  const digest = (b) => createHash("sha256").update(b).digest("hex");
  if (digest(body.subarray(head.length, head.length + snapshot.length)) !== digest(snapshot)) problems.push("the snapshot part is not the snapshot published");
  const parts = body.toString("latin1").split(`--${boundary}\r\n`).length - 1;
  if (parts !== count + 1) problems.push(`${parts} parts, expected ${count + 1}`);
  const expected = answerBytes(r.headers["content-type"], snapshot.length, count, messageBytes);
  if (body.length !== expected) problems.push(`${body.length} bytes, expected ${expected}`);
  if (!body.subarray(body.length - boundary.length - 6).equals(Buffer.from(`--${boundary}--\r\n`))) problems.push("no closing delimiter");
  if (r.headers["stream-up-to-date"] !== "true") problems.push("not up to date");
  return { ok: problems.length === 0, problems };
}
