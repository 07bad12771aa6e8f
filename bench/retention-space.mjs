// Is the space below a retained floor really given back? Against dist/ursa (or $URSA_BINARY):
//   1. fill one application/octet-stream stream with --gib GiB of 64 KiB appends (4 writers),
//   2. publish a small snapshot at --drop (default 0.9) of it and move retention there,
//   3. wait until the background reclaimer has deleted every row below the floor,
//   4. append --more-mib MiB more.
// After each step it prints the database file's size, the WAL's, the segment files' (sealed runs
// of messages moved out of the database, docs/operations.md), and SQLite's page and freelist
// counts (read with the sqlite3 shell from the live database). During step 3 a second writer
// appends a small message to another stream every 10 ms and reports the worst latency, to show
// that the deletion does not stall the server. Not part of `npm run bench`: it writes a few GiB to disk.
//
// --segment-mb N is passed to ursa (0 keeps every message in the database).
// --legacy starts ursa on a database file that already exists with auto_vacuum = NONE, as one
// created by an ursa before schema 4 has: freed pages are then reused, never given back.
//
//   node bench/retention-space.mjs [--gib 1] [--drop 0.9] [--more-mib 500] [--sync full|normal] [--segment-mb N] [--legacy]
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Conn, forEachConcurrent } from "./lib/http.mjs";

const { values: o } = parseArgs({ options: { legacy: { type: "boolean", default: false }, gib: { type: "string", default: "1" }, drop: { type: "string", default: "0.9" }, "more-mib": { type: "string", default: "500" }, sync: { type: "string", default: "full" }, "segment-mb": { type: "string" } } });
const binary = resolve(import.meta.dirname, "..", process.env.URSA_BINARY ?? "dist/ursa");
const dir = mkdtempSync(join(tmpdir(), "ursa-retention-"));
const db = join(dir, "ursa.sqlite");
const MiB = 2 ** 20;
const chunk = randomBytes(64 * 1024);
const at = (n) => `0000000000000000_${String(n).padStart(16, "0")}`;

if (o.legacy) execFileSync("sqlite3", [db, "PRAGMA auto_vacuum = NONE; CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"]);
const segmentArgs = o["segment-mb"] === undefined ? [] : ["--segment-mb", o["segment-mb"]];
const child = spawn(binary, ["--port", "0", "--data", dir, "--sync", o.sync, ...segmentArgs], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((res, rej) => {
  child.stdout.on("data", (d) => {
    const m = /listening (http:\/\/\S+)/.exec(String(d));
    if (m) res(m[1]);
  });
  child.once("exit", (c) => rej(new Error(`ursa exited (${c})`)));
});

const sql = (q) => execFileSync("sqlite3", [db, q], { encoding: "utf8" }).trim();
const size = (p) => {
  try {
    return statSync(p).size;
  } catch {
    return 0;
  }
};
const segments = join(dir, "ursa.sqlite-segments");
const segmentBytes = () => (existsSync(segments) ? readdirSync(segments).reduce((n, name) => n + size(join(segments, name)), 0) : 0);
function report(step) {
  const [pageSize, pages, free] = ["page_size", "page_count", "freelist_count"].map((p) => Number(sql(`PRAGMA ${p}`)));
  const line = {
    step,
    fileMiB: +(size(db) / MiB).toFixed(1),
    walMiB: +(size(`${db}-wal`) / MiB).toFixed(1),
    segmentsMiB: +(segmentBytes() / MiB).toFixed(1),
    pages,
    freePages: free,
    freeMiB: +((free * pageSize) / MiB).toFixed(1),
    usedMiB: +(((pages - free) * pageSize) / MiB).toFixed(1),
  };
  console.log(JSON.stringify(line));
  return line;
}

async function fill(path, mib) {
  const appends = Math.ceil((mib * MiB) / chunk.length);
  let failed = 0;
  await forEachConcurrent(Array.from({ length: appends }), 4, url, async (c) => {
    const r = await c.request("POST", path, "Content-Type: application/octet-stream\r\n", chunk, { discardBody: true });
    if (r.status !== 204) failed++;
  });
  if (failed) throw new Error(`${failed} appends failed`);
  return appends;
}

const conn = new Conn(url, { idleReconnectMs: 600_000 });
const main = "/bench-space/main";
try {
  for (const p of [main, "/bench-space/side"]) {
    const r = await conn.request("PUT", p, "Content-Type: application/octet-stream\r\n", null);
    if (r.status !== 201) throw new Error(`PUT ${p}: ${r.status}`);
  }
  console.log(`ursa ${binary} --sync ${o.sync}, data ${dir}; auto_vacuum=${sql("PRAGMA auto_vacuum")} (2 = incremental)`);
  const t0 = performance.now();
  const appends = await fill(main, Number(o.gib) * 1024);
  console.log(`filled ${o.gib} GiB in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const before = report("filled");

  // Moves to segment files follow the appends: wait until the files stop growing.
  for (let last = -1, i = 0; i < 600 && segmentBytes() !== last; i++) {
    last = segmentBytes();
    await new Promise((res) => setTimeout(res, 1000));
  }
  report("moved");
  const floor = Math.round(appends * Number(o.drop)) * chunk.length;
  let r = await conn.request("PUT", `${main}/snapshot/${at(floor)}`, "Content-Type: application/json\r\n", Buffer.from('{"note":"state up to the floor"}'));
  if (r.status !== 204) throw new Error(`snapshot: ${r.status}`);
  const t1 = performance.now();
  r = await conn.request("PUT", `${main}/retention/${at(floor)}`, "", null);
  const retentionMs = performance.now() - t1;
  if (r.status !== 204) throw new Error(`retention: ${r.status}`);
  console.log(`retention to ${(floor / MiB).toFixed(0)} MiB answered in ${retentionMs.toFixed(1)} ms`);

  // While the reclaimer works, a second writer appends a small message every 10 ms.
  let worst = 0;
  let sideAppends = 0;
  let reclaiming = true;
  const side = (async () => {
    const c = new Conn(url, { idleReconnectMs: 600_000 });
    while (reclaiming) {
      const s = performance.now();
      await c.request("POST", "/bench-space/side", "Content-Type: application/octet-stream\r\n", Buffer.from("tick"), { discardBody: true });
      worst = Math.max(worst, performance.now() - s);
      sideAppends++;
      await new Promise((res) => setTimeout(res, 10));
    }
    c.close();
  })();
  const t2 = performance.now();
  while (Number(sql(`SELECT count(*) FROM msg_index WHERE start < ${floor} AND stream_id = (SELECT id FROM streams WHERE name = 'main')`)) > 0) {
    await new Promise((res) => setTimeout(res, 200));
  }
  const reclaimS = (performance.now() - t2) / 1000;
  // Incremental vacuum steps follow the deletion: wait until the file stops shrinking.
  const t3 = performance.now();
  let last = -1;
  for (let i = 0; i < 600; i++) {
    await new Promise((res) => setTimeout(res, 1000));
    const now = Number(sql("PRAGMA page_count"));
    if (now === last) break;
    last = now;
  }
  const vacuumS = (performance.now() - t3) / 1000;
  reclaiming = false;
  await side;
  console.log(`rows below the floor deleted in ${reclaimS.toFixed(1)} s, the file given back in ${vacuumS.toFixed(0)} s more; meanwhile ${sideAppends} small appends, the slowest ${worst.toFixed(1)} ms`);
  const after = report("after retention");
  await fill(main, Number(o["more-mib"]));
  const more = report(`after ${o["more-mib"]} MiB more`);
  console.log(JSON.stringify({ before, after, more, retentionMs: +retentionMs.toFixed(1), reclaimS: +reclaimS.toFixed(1), vacuumS: +vacuumS.toFixed(0), worstAppendMs: +worst.toFixed(1) }));
} finally {
  conn.close();
  child.kill("SIGTERM");
  await new Promise((res) => child.once("exit", res));
  rmSync(dir, { recursive: true, force: true });
}
