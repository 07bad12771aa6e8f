// The durable-mode sync, and what happens when it fails.

import { closeSync, fdatasync, fdatasyncSync, fsyncSync, mkdirSync, openSync, unlinkSync } from "node:fs";
import { open } from "node:fs/promises";
import { dirname } from "node:path";
import type { Sync } from "./group-commit";

export function exitOnSyncFailure(error: unknown): never {
  // After a failed fsync nobody can say which committed writes are on disk; acknowledging any
  // more would be a lie, so stop (as PostgreSQL does) and let recovery replay the WAL.
  console.error("ursa: fsync of the write-ahead log failed; stopping:", error);
  process.exit(70);
}

/**
 * Makes the names in `dir` durable: a new file's entry. Windows cannot open a directory to sync
 * it, nor needs to: NTFS journals its directory entries.
 */
export function syncDirectory(dir: string): void {
  if (process.platform === "win32") return;
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes `dir` (and its parents) if missing; a new one's own entry is synced in its parent, since every file in it is published through it. */
export function makeDirDurable(dir: string): void {
  if (mkdirSync(dir, { recursive: true }) !== undefined) syncDirectory(dirname(dir));
}

/** Deletes a file; gone already is fine (a crash may have come between a deletion and its commit). */
export function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOENT") throw error;
  }
}

/** syncDirectory on Bun's thread pool, for background work that must not hold the event loop. */
export async function syncDirectoryOffLoop(dir: string): Promise<void> {
  if (process.platform === "win32") return;
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * The durable-mode sync: fdatasync the WAL. SQLite has already written every committed frame to
 * it, so once this returns they survive a power loss, exactly as with synchronous=FULL. In the
 * background it runs on Bun's thread pool, so the event loop does not wait for the disk.
 */
export function walSync(dbPath: string): Sync {
  let fd: number | null = null;
  const walFd = () => {
    if (fd === null) {
      fd = openSync(`${dbPath}-wal`, "r");
      // The WAL file is new: its directory entry must be durable too, once.
      syncDirectory(dirname(dbPath));
    }
    return fd;
  };
  // fdatasync, as SQLite itself syncs: it still writes the file size when that changed, which is
  // all a reader of the WAL needs; 30.8/30.6/32.0k vs 28.8/31.0/30.2k appends/s with fsync.
  return {
    inBackground: () => {
      const f = walFd();
      return new Promise<void>((resolve, reject) => fdatasync(f, (error) => (error ? reject(error) : resolve())));
    },
    now: () => fdatasyncSync(walFd()),
  };
}
