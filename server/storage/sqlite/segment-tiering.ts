// Moves sealed runs of a byte stream's messages out of their rows into a segment file
// (segment-files.ts), in the background, once a run of SEGMENT_BYTES is materialized. The order
// makes a crash at any point harmless: the file is written and synced first (a crash leaves a
// file no row refers to, deleted at the next start), then one transaction checks that the run's
// rows are all still there, unchanged, empties them and records the file (a crash before it is
// durable leaves the rows as they were). Only then is the file handed to responses.
//
// Streams of small messages stay in their rows: a run must reach SEGMENT_BYTES within MAX_ROWS
// rows (1 KiB a message on average), so one move empties a bounded number of rows. A move's
// transaction holds the writer, and the event loop, while SQLite frees the run's pages, so runs
// are small: 8 MiB, which is also what one catch-up response carries (docs/design/segment-files.md).

import type { Database, Statement } from "bun:sqlite";
import { open, type FileHandle } from "node:fs/promises";
import type { WriteHealth } from "../write-health";
import type { Batch } from "./batch";
import { freeBytes } from "./disk-reserve";
import type { MessageLog } from "./message-log";
import type { Reclaimer } from "./reclaimer";
import type { SqliteStoreOptions } from "./sqlite-store-options";
import type { SegmentFiles } from "./segment-files";
import { syncDirectoryOffLoop } from "./wal-sync";

export const SEGMENT_BYTES = 8 * 1024 * 1024;
const MAX_ROWS = 8192;
/** A file is written this much at a time: each write leaves the event loop a turn. */
const WRITE_BYTES = 4 * 1024 * 1024;
/**
 * A move needs room for its file, and the same again for the writes meanwhile, beside this: on a
 * fuller disk messages stay in their rows, and no move makes an append find the disk full.
 */
const FREE_MARGIN_BYTES = 64 * 1024 * 1024;
/** Materialization runs about every 100 ms (message-log.ts); a run is looked for a little later. */
const LOOK_AFTER_MS = 250;

export interface TieringDeps {
  db: Database;
  files: SegmentFiles;
  submit<T>(run: (tx: Batch) => T): Promise<T>;
  /** Whether the disk takes writes: a full one gets no new files. */
  writable(): boolean;
  /** Bytes the file system has free, or null where that is not known. */
  freeBytes(): number | null;
  /** Rows emptied: their pages are free in the database (the reclaimer may give them back). */
  freed(bytes: number): void;
  /** Whether the stream has log rows not yet indexed (message-log.ts), which a run cannot take yet. */
  behind(streamId: number): boolean;
  segmentBytes?: number;
}

interface Candidate {
  start: number;
  id: number;
  len: number;
}

export class SegmentTiering {
  /** Streams that may hold a run to move: bytes appended (or found unmoved) since the last look. */
  private readonly due = new Map<number, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | null = null;
  private stopped = false;
  readonly segmentBytes: number;
  private readonly candidates: Statement<Candidate>;
  private readonly dataOf: Statement<{ data: Uint8Array }>;
  private readonly check: Statement<{ n: number; bytes: number }>;
  private readonly empty: Statement;
  private readonly record: Statement;
  private readonly isDropped: Statement<{ stream_id: number }>;

  constructor(private readonly deps: TieringDeps) {
    this.segmentBytes = deps.segmentBytes ?? SEGMENT_BYTES;
    const { db } = deps;
    // Only indexed rows: they are materialized, and never replayed at start-up (message-log.ts).
    this.candidates = db.prepare(
      `SELECT i.start AS start, m.id AS id, length(m.data) AS len FROM msg_index i JOIN msgs m ON m.id = i.msg_id
       WHERE i.stream_id = ? AND i.start >= ? AND m.flen IS NULL ORDER BY i.start LIMIT ${MAX_ROWS}`,
    );
    this.dataOf = db.prepare("SELECT data FROM msgs WHERE id = ?");
    this.check = db.prepare(
      `SELECT count(*) AS n, coalesce(sum(CASE WHEN m.flen IS NULL THEN length(m.data) END), 0) AS bytes
       FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ? AND i.start >= ? AND i.start < ?`,
    );
    this.empty = db.prepare("UPDATE msgs SET flen = length(data), data = x'' WHERE id IN (SELECT msg_id FROM msg_index WHERE stream_id = ? AND start >= ? AND start < ?)");
    this.record = db.prepare("INSERT INTO msg_files (stream_id, lo, hi) VALUES (?, ?, ?)");
    this.isDropped = db.prepare("SELECT stream_id FROM dropped_streams WHERE stream_id = ?");
  }

  /** Bytes a byte stream's appends added, once durable. */
  appended(streamId: number, bytes: number): void {
    const due = (this.due.get(streamId) ?? 0) + bytes;
    this.due.set(streamId, due);
    if (due >= this.segmentBytes) this.schedule();
  }

  /**
   * A stream to look through until no whole run is left (after a start, whose stream rows may be
   * behind their log rows, so a tail read from them is no measure).
   */
  lookThrough(streamId: number): void {
    this.appended(streamId, Infinity);
  }

  /** Streams holding a whole run not moved yet (the one moving counts until it is done). */
  get pending(): number {
    let n = 0;
    for (const bytes of this.due.values()) if (bytes >= this.segmentBytes) n++;
    return n;
  }

  /** Resolves once no move is running or waiting to (tests, and close()). */
  async settled(): Promise<void> {
    while (this.running || (this.timer !== undefined && !this.stopped)) {
      if (this.running) await this.running;
      else await new Promise((r) => setTimeout(r, LOOK_AFTER_MS));
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.running || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.run().finally(() => {
        this.running = null;
        for (const bytes of this.due.values()) if (bytes >= this.segmentBytes) return this.schedule();
      });
    }, LOOK_AFTER_MS);
    this.timer.unref();
  }

  /** Moves runs, one stream's at a time, for as long as some stream has one ready. */
  private async run(): Promise<void> {
    for (let moved = true; moved && !this.stopped; ) {
      moved = false;
      for (const [streamId, bytes] of [...this.due]) {
        if (this.stopped || bytes < this.segmentBytes) continue;
        if (!this.deps.writable()) return;
        try {
          if (await this.moveOne(streamId)) moved = true;
        } catch {
          // A file the disk refused, or a failed transaction: nothing was published; the stream
          // is looked at again after its next appends.
          this.due.set(streamId, 0);
        }
      }
    }
  }

  /** Moves the stream's next run, if one of SEGMENT_BYTES is there (true); else notes what is. */
  private async moveOne(streamId: number): Promise<boolean> {
    if (this.isDropped.get(streamId)) {
      this.due.delete(streamId);
      return false;
    }
    const run: Candidate[] = [];
    let bytes = 0;
    for (const row of this.candidates.iterate(streamId, this.deps.files.frontier(streamId))) {
      if (run.length > 0 && row.start !== run[0]!.start + bytes) break;
      run.push(row);
      if ((bytes += row.len) >= this.segmentBytes) break;
    }
    if (bytes < this.segmentBytes) {
      // Rows not indexed yet are looked at again once they are (about every 100 ms); else there
      // is not enough yet, or the messages are small (a move's most rows do not reach it).
      if (run.length < MAX_ROWS && this.deps.behind(streamId)) return false;
      this.due.set(streamId, run.length === MAX_ROWS ? 0 : bytes);
      return false;
    }
    const free = this.deps.freeBytes();
    if (free !== null && free < 2 * bytes + FREE_MARGIN_BYTES) {
      this.due.set(streamId, 0);
      return false;
    }
    const first = run[0]!.start;
    const end = first + bytes;
    if (!(await this.write(streamId, first, run))) {
      this.due.set(streamId, 0);
      return false;
    }
    const range = this.deps.files.add(streamId, first, end);
    let published = false;
    try {
      published = await this.deps.submit(() => {
        const found = this.check.get(streamId, first, end)!;
        if (found.n !== run.length || found.bytes !== bytes) return false;
        this.empty.run(streamId, first, end);
        this.record.run(streamId, first, end);
        return true;
      });
    } finally {
      if (!published) this.deps.files.discard(streamId, first);
    }
    if (!published) {
      this.due.set(streamId, 0);
      return false;
    }
    range.sendable = true;
    this.deps.freed(bytes);
    this.due.set(streamId, Math.max(0, (this.due.get(streamId) ?? 0) - bytes));
    return true;
  }

  /** Writes the run's bytes to its file and syncs it and its name; false if a row went meanwhile. */
  private async write(streamId: number, lo: number, run: Candidate[]): Promise<boolean> {
    const { files } = this.deps;
    files.ensureDir();
    const file = await open(files.path(streamId, lo), "w");
    let complete = false;
    try {
      const buffer = new Uint8Array(WRITE_BYTES);
      let used = 0;
      for (const row of run) {
        const data = this.dataOf.get(row.id)?.data;
        if (!data || data.length !== row.len) return false;
        if (used + data.length > buffer.length && used > 0) {
          await writeAll(file, buffer.subarray(0, used));
          used = 0;
        }
        if (data.length > buffer.length) await writeAll(file, data);
        else {
          buffer.set(data, used);
          used += data.length;
        }
      }
      if (used > 0) await writeAll(file, buffer.subarray(0, used));
      await file.sync();
      complete = true;
    } finally {
      await file.close();
      if (!complete) files.remove(streamId, lo);
    }
    await syncDirectoryOffLoop(files.dir);
    return true;
  }
}

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done)).bytesWritten;
}

/**
 * The mover of sealed runs to segment files (segment-tiering.ts), unless it is turned off. A
 * database without incremental vacuum (made before schema 4) cannot give the pages of moved
 * messages back: its file would keep their size beside the files, so it keeps them in rows.
 */
export function startTiering(
  options: SqliteStoreOptions,
  db: Database,
  files: SegmentFiles,
  health: WriteHealth,
  submit: <T>(run: (tx: Batch) => T) => Promise<T>,
  reclaimer: Reclaimer<Batch>,
  log: MessageLog,
): SegmentTiering | undefined {
  const incremental = db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()!.auto_vacuum === 2;
  if (options.segmentBytes === 0 || !incremental) return undefined;
  return new SegmentTiering({
    db,
    files,
    submit,
    writable: () => health.state === "ok",
    freeBytes: () => freeBytes(options.path),
    freed: (bytes) => reclaimer.freedElsewhere(bytes),
    behind: (id) => log.isBehind(id),
    segmentBytes: options.segmentBytes,
  });
}
