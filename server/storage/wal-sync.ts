// The durable-mode sync, and what happens when it fails.

import { closeSync, fdatasyncSync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";
import type { Sync } from "./group-commit";

export function exitOnSyncFailure(error: unknown): never {
  // After a failed fsync nobody can say which committed writes are on disk; acknowledging any
  // more would be a lie, so stop (as PostgreSQL does) and let recovery replay the WAL.
  console.error("ursa: fsync of the write-ahead log failed; stopping:", error);
  process.exit(70);
}

/** Slots of the Int32Array the event loop and the sync thread share. */
const ASKED = 0;
const DONE = 1;
const FAILED = 2;
/** Set by the sync thread while it sleeps: only then does an ask need to wake it. */
const ASLEEP = 3;

/**
 * The sync thread: it sleeps until the event loop raises ASKED, fdatasyncs the WAL, and sets DONE
 * to the ASKED it read before it began, since a sync covers whatever was written before it
 * began. Several asks while one sync runs are answered by the next one; a negative ASKED ends
 * it. Its source is inline so that the compiled binary needs no second entry point for it.
 */
const SYNC_THREAD = `
const { fdatasyncSync, openSync } = require("node:fs");
self.onmessage = (event) => {
  const { shared, wal } = event.data;
  const slots = new Int32Array(shared);
  const fd = openSync(wal, "r");
  let done = 0;
  for (;;) {
    Atomics.store(slots, ${ASLEEP}, 1);
    Atomics.wait(slots, ${ASKED}, done);
    Atomics.store(slots, ${ASLEEP}, 0);
    const asked = Atomics.load(slots, ${ASKED});
    if (asked < 0) return;
    try {
      fdatasyncSync(fd);
    } catch (error) {
      self.postMessage(String(error && error.message));
      Atomics.store(slots, ${FAILED}, 1);
    }
    done = asked;
    Atomics.store(slots, ${DONE}, done);
    Atomics.notify(slots, ${DONE});
  }
};`;

/**
 * The durable-mode sync: fdatasync the WAL. SQLite has already written every committed frame to
 * it, so once this returns they survive a power loss, exactly as with synchronous=FULL.
 *
 * In the background it runs on a thread of its own, woken through shared memory: handing the
 * sync to Bun's pool with fs.fdatasync cost the event loop 14–30 µs at p50 (90–110 at p99) per
 * call, 11% of its time with 16 writers, and the callback came 50–90 µs after the sync was done
 * (bench/PROFILE-20.md); Atomics.notify costs it 2 µs at p50 and the answer comes ~15 µs after.
 */
export function walSync(dbPath: string): Sync {
  const wal = `${dbPath}-wal`;
  let fd: number | null = null;
  const walFd = () => {
    if (fd === null) {
      fd = openSync(wal, "r");
      // The WAL file is new: its directory entry must be durable too, once. Windows cannot open a
      // directory to sync it, nor needs to: NTFS journals its directory entries.
      if (process.platform !== "win32") {
        const dir = openSync(dirname(dbPath), "r");
        fsyncSync(dir);
        closeSync(dir);
      }
    }
    return fd;
  };
  const slots = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  let thread: Worker | null = null;
  let asked = 0;
  let failure: Error | null = null;
  const waiting: { upTo: number; resolve: () => void; reject: (error: Error) => void }[] = [];
  let watching = false;

  const settle = () => {
    if (failure === null && Atomics.load(slots, FAILED) !== 0) failure = new Error("fdatasync of the WAL failed");
    const done = Atomics.load(slots, DONE);
    while (waiting.length > 0 && (failure !== null || waiting[0]!.upTo <= done)) {
      const w = waiting.shift()!;
      if (failure) w.reject(failure);
      else w.resolve();
    }
    return done;
  };
  // One waitAsync at a time, on the DONE slot, for every sync waited for.
  const watch = () => {
    if (watching) return;
    const done = settle();
    if (waiting.length === 0) return;
    watching = true;
    const r = Atomics.waitAsync(slots, DONE, done);
    const next = () => {
      watching = false;
      watch();
    };
    if (r.async) void r.value.then(next);
    else next();
  };

  return {
    inBackground: () => {
      walFd();
      if (thread === null) {
        thread = new Worker(URL.createObjectURL(new Blob([SYNC_THREAD], { type: "application/javascript" })));
        thread.onmessage = (event: MessageEvent<string>) => (failure = new Error(`fdatasync of the WAL failed: ${event.data}`));
        thread.unref();
        thread.postMessage({ shared: slots.buffer, wal });
      }
      const upTo = ++asked;
      Atomics.store(slots, ASKED, upTo);
      // A sync thread that is not asleep sees the ask when its sync ends (or its wait begins, which
      // returns at once since ASKED changed); waking a sleeping one costs a futex call and, in a
      // virtual machine, an interrupt to the other core: 12% of the event loop at 16x16.
      if (Atomics.load(slots, ASLEEP) === 1) Atomics.notify(slots, ASKED);
      return new Promise<void>((resolve, reject) => {
        waiting.push({ upTo, resolve, reject });
        watch();
      });
    },
    // fdatasync, as SQLite itself syncs: it still writes the file size when that changed, which is
    // all a reader of the WAL needs; 30.8/30.6/32.0k vs 28.8/31.0/30.2k appends/s with fsync.
    now: () => fdatasyncSync(walFd()),
    close: async () => {
      if (thread === null) return;
      Atomics.store(slots, ASKED, -1);
      Atomics.notify(slots, ASKED);
      await thread.terminate();
    },
  };
}
