// Sealed runs of a byte stream's messages, in files beside the database
// (`ursa.sqlite-segments/<stream id>-<first offset>`), moved there once they are materialized
// (segment-tiering.ts). The rows stay, each with its length (`msgs.flen`) and an empty blob, so
// offsets, forks, retention and message boundaries work as before; `msg_files` says which offsets
// [lo, hi) of a stream a file holds. Why: a catch-up read from rows copies every byte three times
// in user space (SQLite joins a 64 KiB row from its pages, Bun copies it into a JS array, ursa
// groups rows into writes), and a file can be answered with sendfile(2), which copies none.
//
// A file is written and synced, with its directory entry, before the transaction that empties
// its rows commits, and never changes after. It is deleted once no row it holds is left, after
// that deletion is durable: at once if no response was handed it in the last UNLINK_GRACE_MS,
// else that long after the last one was (Bun opens the file as the response starts, and an open
// file outlives its name). Files a crash left without a row are deleted at start-up.

import { closeSync, openSync, readSync } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { makeDirDurable, unlinkIfPresent } from "./wal-sync";

/** How long after a response was handed a file the file may still be opened for it. */
const UNLINK_GRACE_MS = 30_000;

export interface SegmentRange {
  lo: number;
  hi: number;
  /**
   * Whether responses may be handed the file itself: once its rows are durably emptied, and, after
   * a start, once its size is checked. Until then reads copy from it, which finds a damaged file.
   */
  sendable: boolean;
  /** When a response was last handed the file (performance.now()), or -Infinity. */
  handedAt: number;
}

/** A segment file that is missing or shorter than its rows say: the stream's reads of it fail. */
export class SegmentDamage extends Error {}

export class SegmentFiles {
  readonly dir: string;
  /** Each stream's ranges, lowest first; a stream with none has no entry. */
  private readonly ranges = new Map<number, SegmentRange[]>();
  private made = false;
  private readonly unlinks = new Map<ReturnType<typeof setTimeout>, [number, number]>();

  constructor(db: Database, dbPath: string) {
    this.dir = `${dbPath}-segments`;
    const recorded = db.query<{ stream_id: number; lo: number; hi: number }, []>("SELECT stream_id, lo, hi FROM msg_files ORDER BY stream_id, lo");
    for (const { stream_id, lo, hi } of recorded.all()) this.rangesOf(stream_id).push({ lo, hi, sendable: false, handedAt: -Infinity });
  }

  path(streamId: number, lo: number): string {
    return join(this.dir, `${streamId}-${lo}`);
  }

  has(streamId: number): boolean {
    return this.ranges.has(streamId);
  }

  /** The range holding `offset`, if a file does. */
  at(streamId: number, offset: number): SegmentRange | undefined {
    const list = this.ranges.get(streamId);
    if (!list) return undefined;
    const r = list[lastAtOrBelow(list, offset)];
    return r && offset < r.hi ? r : undefined;
  }

  /** Where the stream's next file would begin: the end of its last one, or 0. */
  frontier(streamId: number): number {
    const list = this.ranges.get(streamId);
    return list ? list[list.length - 1]!.hi : 0;
  }

  /** The stream's ranges that hold any offset in [from, to]. */
  overlapping(streamId: number, from: number, to: number): SegmentRange[] {
    const list = this.ranges.get(streamId) ?? [];
    const out: SegmentRange[] = [];
    for (let i = Math.max(0, lastAtOrBelow(list, from)); i < list.length && list[i]!.lo <= to; i++) if (list[i]!.hi > from) out.push(list[i]!);
    return out;
  }

  /** Made by the first file, so a start needs no room on the disk; its own entry is synced where new. */
  ensureDir(): void {
    if (this.made) return;
    makeDirDurable(this.dir);
    this.made = true;
  }

  /** A file about to be published: its rows may be emptied from now on, and are read from it. */
  add(streamId: number, lo: number, hi: number): SegmentRange {
    const range: SegmentRange = { lo, hi, sendable: false, handedAt: -Infinity };
    const list = this.rangesOf(streamId);
    list.splice(lastAtOrBelow(list, lo) + 1, 0, range);
    return range;
  }

  /** A file whose publish failed: no response was handed it, so it goes now. */
  discard(streamId: number, lo: number): void {
    this.drop(streamId, lo);
    this.remove(streamId, lo);
  }

  /** A file whose last row is durably gone: deleted now, or once no response it was handed may still open it. */
  forget(streamId: number, lo: number): void {
    const range = this.at(streamId, lo);
    this.drop(streamId, lo);
    const wait = (range?.handedAt ?? -Infinity) + UNLINK_GRACE_MS - performance.now();
    if (wait <= 0) return this.remove(streamId, lo);
    const timer = setTimeout(() => {
      this.unlinks.delete(timer);
      this.remove(streamId, lo);
    }, wait);
    timer.unref();
    this.unlinks.set(timer, [streamId, lo]);
  }

  private drop(streamId: number, lo: number): void {
    const list = this.ranges.get(streamId);
    if (!list) return;
    const rest = list.filter((r) => r.lo !== lo);
    if (rest.length > 0) this.ranges.set(streamId, rest);
    else this.ranges.delete(streamId);
  }

  /** Deletes a file now. Gone already is fine (a crash may have come between a deletion and its commit). */
  remove(streamId: number, lo: number): void {
    unlinkIfPresent(this.path(streamId, lo));
  }

  /** Bytes [from, to) of the stream's file that starts at `lo`, as one fresh array. */
  read(streamId: number, lo: number, from: number, to: number): Uint8Array {
    const out = new Uint8Array(to - from);
    let fd: number;
    try {
      fd = openSync(this.path(streamId, lo), "r");
    } catch (error) {
      throw new SegmentDamage(`segment file ${this.path(streamId, lo)} cannot be opened: ${(error as Error).message}`);
    }
    try {
      for (let done = 0; done < out.length; ) {
        const n = readSync(fd, out, done, out.length - done, from - lo + done);
        if (n === 0) throw new SegmentDamage(`segment file ${this.path(streamId, lo)} ends before offset ${from + done}`);
        done += n;
      }
    } finally {
      closeSync(fd);
    }
    return out;
  }

  /**
   * After a start: deletes files no row refers to (a crash between a file's sync and its commit)
   * and checks each referred file's size, which makes it sendable. One stat at a time, off the
   * event loop. Returns what it deleted and which files are damaged.
   */
  async sweep(): Promise<{ orphans: number; damaged: string[] }> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") names = [];
      else throw error;
    }
    let orphans = 0;
    for (const name of names) {
      const m = /^([1-9][0-9]*)-(0|[1-9][0-9]*)$/.exec(name);
      if (!m || this.at(Number(m[1]), Number(m[2]))?.lo === Number(m[2])) continue;
      this.remove(Number(m[1]), Number(m[2]));
      orphans++;
    }
    const damaged: string[] = [];
    for (const [streamId, list] of this.ranges) {
      for (const range of list) {
        if (range.sendable) continue;
        const size = (await stat(this.path(streamId, range.lo)).catch(() => null))?.size ?? -1;
        if (size === range.hi - range.lo) range.sendable = true;
        else damaged.push(this.path(streamId, range.lo));
      }
    }
    return { orphans, damaged };
  }

  /** Bytes held in segment files, as the ranges say. */
  bytes(): number {
    let total = 0;
    for (const list of this.ranges.values()) for (const r of list) total += r.hi - r.lo;
    return total;
  }

  /** Deletes now what waits for its grace (a stop: no response outlives the process). */
  close(): void {
    for (const [timer, [streamId, lo]] of this.unlinks) {
      clearTimeout(timer);
      this.remove(streamId, lo);
    }
    this.unlinks.clear();
  }

  private rangesOf(streamId: number): SegmentRange[] {
    let list = this.ranges.get(streamId);
    if (!list) this.ranges.set(streamId, (list = []));
    return list;
  }
}

/** The index of the last range that begins at or below `offset` (ranges are in order), or -1. */
function lastAtOrBelow(list: readonly SegmentRange[], offset: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.lo <= offset) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}
