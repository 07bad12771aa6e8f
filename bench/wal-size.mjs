// Does the WAL shrink back after a burst? Against dist/ursa (or $URSA_BINARY):
//   1. fill one application/octet-stream stream with --gib GiB of 64 KiB appends (4 writers),
//   2. fork it at its tail: the fork copies every byte in one transaction, so the WAL must hold
//      all of it at once (until forks share their source's bytes, the largest burst there is),
//   3. with --trickle, go on appending a small message every 50 ms for --idle-s seconds (the
//      writer then truncates the WAL to its limit, journal_size_limit); either way, then wait
//      --idle-s seconds with no writes (the checkpoint thread truncates a WAL still over it).
// After each step it prints the sizes of the database file and the WAL. Not part of
// `npm run bench`: it writes a few GiB. --dir puts the data directory on a file system of your
// choice (a tmpfs keeps the disk out of it; the WAL behaves the same).
//
//   node bench/wal-size.mjs [--gib 1] [--idle-s 3] [--trickle] [--dir DIR]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { Conn, forEachConcurrent } from "./lib/http.mjs";

const { values: o } = parseArgs({ options: { gib: { type: "string", default: "1" }, "idle-s": { type: "string", default: "3" }, trickle: { type: "boolean", default: false }, dir: { type: "string" } } });
const binary = resolve(import.meta.dirname, "..", process.env.URSA_BINARY ?? "dist/ursa");
const dir = mkdtempSync(join(o.dir ?? tmpdir(), "ursa-wal-"));
const db = join(dir, "ursa.sqlite");
const MiB = 2 ** 20;
const chunk = randomBytes(64 * 1024);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const size = (p) => statSync(p, { throwIfNoEntry: false })?.size ?? 0;
const started = performance.now();
const rows = [];
function report(step) {
  const row = { step, s: +((performance.now() - started) / 1000).toFixed(1), fileMiB: +(size(db) / MiB).toFixed(1), walMiB: +(size(`${db}-wal`) / MiB).toFixed(1) };
  rows.push(row);
  console.log(JSON.stringify(row));
}

const child = spawn(binary, ["--port", "0", "--data", dir], { stdio: ["ignore", "pipe", "inherit"] });
const url = await new Promise((res, rej) => {
  child.stdout.on("data", (d) => {
    const m = /listening (http:\/\/\S+)/.exec(String(d));
    if (m) res(m[1]);
  });
  child.once("exit", (c) => rej(new Error(`ursa exited (${c})`)));
});
const conn = new Conn(url, { idleReconnectMs: 600_000 });
try {
  const octets = "Content-Type: application/octet-stream\r\n";
  let r = await conn.request("PUT", "/bench-wal/main", octets, null);
  if (r.status !== 201) throw new Error(`PUT: ${r.status}`);
  console.log(`ursa ${binary}, data ${dir}`);
  const appends = Math.ceil((Number(o.gib) * 1024 * MiB) / chunk.length);
  await forEachConcurrent(Array.from({ length: appends }), 4, url, async (c) => {
    const a = await c.request("POST", "/bench-wal/main", octets, chunk, { discardBody: true });
    if (a.status !== 204) throw new Error(`append: ${a.status}`);
  });
  report(`filled ${o.gib} GiB`);
  const t = performance.now();
  r = await conn.request("PUT", "/bench-wal/fork", "Stream-Forked-From: /bench-wal/main\r\n", null);
  if (r.status !== 201) throw new Error(`fork: ${r.status}`);
  report(`forked in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  if (o.trickle) {
    for (let i = 1; i <= Number(o["idle-s"]); i++) {
      for (const until = performance.now() + 1000; performance.now() < until; ) {
        r = await conn.request("POST", "/bench-wal/main", octets, Buffer.from("tick"), { discardBody: true });
        if (r.status !== 204) throw new Error(`append: ${r.status}`);
        await sleep(50);
      }
      report(`writing on, ${i} s`);
    }
  }
  for (let i = 1; i <= Number(o["idle-s"]); i++) {
    await sleep(1000);
    report(`idle ${i} s`);
  }
  console.log(JSON.stringify({ binary, rows }));
} finally {
  conn.close();
  child.kill("SIGTERM");
  await new Promise((res) => child.once("exit", res));
  rmSync(dir, { recursive: true, force: true });
}
