// The fdatasync ceiling: what one writer that waits for each record to be on disk can reach here,
// with no HTTP, no SQLite and no other work. One closed loop appends a record to a plain file and
// fdatasyncs it, then the next. Run by the append workload as its own process (so its CPU is
// metered like a server's), in a fresh directory on the same file system as ursa's data directory:
//
//   node bench/lib/fsync-ceiling.mjs DIR BYTES WARMUP_MS DURATION_MS
//
// It prints "measure" when the measured window starts, then one JSON line with the window's syncs
// and per-sync latencies (write + fdatasync, ms), and exits once its stdin closes, so the parent
// can read its CPU time from /proc before it is gone.
import { randomBytes } from "node:crypto";
import { closeSync, fdatasyncSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { Samples } from "./stats.mjs";

const [dir, bytes, warmupMs, durationMs] = process.argv.slice(2);
const record = randomBytes(Number(bytes));
// Appended, as SQLite appends frames to a growing write-ahead log.
const fd = openSync(join(dir, "records"), "a");

const loop = (ms, lat) => {
  const until = performance.now() + ms;
  let syncs = 0;
  for (let t0 = performance.now(); t0 < until; syncs++) {
    writeSync(fd, record);
    fdatasyncSync(fd);
    const t1 = performance.now();
    lat?.add(t1 - t0);
    t0 = t1;
  }
  return syncs;
};

loop(Number(warmupMs));
process.stdout.write("measure\n");
const lat = new Samples(1 << 16);
const t0 = performance.now();
const syncs = loop(Number(durationMs), lat);
const wallS = (performance.now() - t0) / 1000;
closeSync(fd);
process.stdout.write(JSON.stringify({ syncs, wallS, ...lat.summary() }) + "\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
