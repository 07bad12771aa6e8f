// The disk reserve: space held in a file beside the database (ursa.sqlite-reserve) and given up
// the moment a write finds the disk full. On a full disk even the writes that free space need
// some first: a DELETE or a retention step writes its pages to the WAL before the checkpoint can
// put the freed pages back to use, a restart replays and checkpoints, a shutdown writes its last
// index rows. With the reserve given up, those have room, while writes that would only add data
// are refused (write-health.ts) so they cannot take it. It is held again once the file system has
// room for it and HEADROOM besides.
//
// While the disk is full the file keeps startRoom() of it, so that a server stopped then can open
// its database again even if something else takes every byte the rest gave back; a start on a
// full disk gives that up too. The file always exists, empty when wholly given up
// (--disk-reserve-mb 0 keeps it empty): beside an emptied ursa.sqlite it shows a database was
// there (open-database.ts).

import { randomFillSync } from "node:crypto";
import { closeSync, constants, ftruncateSync, openSync, statfsSync, statSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { ENOSPC, errno, libc } from "./libc";

export const RESERVE_SUFFIX = "-reserve";

/**
 * What a full store keeps of its reserve: the room its next start needs to open the database
 * (the shared-memory file, the WAL's first frames) when something else has taken every byte the
 * rest gave back. Given up only before that open (FullDisk.beforeOpen).
 */
export function startRoom(reserveBytes: number): number {
  return Math.min(1024 * 1024, Math.floor(reserveBytes / 4));
}

/** Room that must be left beside the reserve before writes that add data resume. */
export function headroom(reserveBytes: number): number {
  return Math.max(1024 * 1024, Math.floor(reserveBytes / 4));
}

export class DiskReserve {
  readonly path: string;

  constructor(
    dbPath: string,
    /** The size it is kept at. */
    readonly bytes: number,
  ) {
    this.path = dbPath + RESERVE_SUFFIX;
  }

  /** Creates the file, empty, if it is missing: once the database is open, never before. */
  ensure(): void {
    closeSync(openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o644));
  }

  /** Bytes held now. */
  held(): number {
    return statSync(this.path, { throwIfNoEntry: false })?.size ?? 0;
  }

  /** Bytes it lacks of its size. */
  missing(): number {
    return Math.max(0, this.bytes - this.held());
  }

  /** Gives the space beyond `keep` bytes back to the file system; how much. */
  release(keep = 0): number {
    const held = this.held();
    if (held <= keep) return 0;
    const fd = openSync(this.path, "r+");
    try {
      ftruncateSync(fd, keep);
    } finally {
      closeSync(fd);
    }
    return held - keep;
  }

  /**
   * Takes the space again; false, holding nothing, if the file system has no room for it. Blocks
   * are allocated, not only promised: fallocate where libc has it, otherwise data is written, and
   * random data, so that a compressing file system (ZFS, btrfs) cannot store it in less.
   */
  fill(): boolean {
    const from = this.held();
    if (from >= this.bytes) return true;
    const fd = openSync(this.path, constants.O_RDWR | constants.O_CREAT, 0o644);
    try {
      const c = libc();
      if (c !== null && c.fallocate(fd, 0, 0, this.bytes) === 0) return true;
      if (c !== null && errno(c) === ENOSPC) {
        ftruncateSync(fd, 0);
        return false;
      }
      // No fallocate here (not Linux, or a file system without it): write the space full.
      const chunk = new Uint8Array(1024 * 1024);
      for (let at = from; at < this.bytes; at += chunk.length) {
        const piece = chunk.subarray(0, Math.min(chunk.length, this.bytes - at));
        randomFillSync(piece);
        writeSync(fd, piece, 0, piece.length, at);
      }
      return true;
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOSPC") throw error;
      ftruncateSync(fd, 0);
      return false;
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Bytes this process may still write on the file system holding `path`; null where the platform
 * cannot say. Root may also use the blocks ext4 keeps back for it, as SQLite then does.
 */
export function freeBytes(path: string): number | null {
  try {
    const s = statfsSync(dirname(path));
    return (process.geteuid?.() === 0 ? s.bfree : s.bavail) * s.bsize;
  } catch {
    return null;
  }
}
