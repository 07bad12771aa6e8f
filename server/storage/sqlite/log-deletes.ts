// Deleting a stream's messages in bounded steps, each inside a transaction of its own that the
// reclaimer (reclaimer.ts) runs: below a floor, above what a deleted source's forks read, or all
// of a dropped stream's. Bounded so that freeing a large stream never holds the writer long.

import type { Database, Statement } from "bun:sqlite";
import type { Batch } from "./batch";
import type { RecentMessages } from "./recent-messages";
import { ROW_LENGTH } from "./schema";
import type { SegmentFiles } from "./segment-files";

/** One step of deleting rows stops after this many rows or bytes. */
const FLOOR_STEP_ROWS = 8192;
const FLOOR_STEP_BYTES = 16 * 1024 * 1024;

export class LogDeletes {
  private readonly anyRowIn: Statement<{ one: number }>;
  private readonly deleteFile: Statement;
  private readonly aboveFrom: Statement<{ start: number; len: number }>;
  private readonly deleteRowsFrom: Statement;
  private readonly deleteIndexFrom: Statement;
  private readonly markDropped: Statement;
  private readonly dropped: Statement<{ stream_id: number }>;
  private readonly unmarkDropped: Statement;
  private readonly belowFloor: Statement<{ start: number; len: number }>;
  private readonly deleteRowsUpTo: Statement;
  private readonly deleteIndexUpTo: Statement;
  private readonly lowestEnd: Statement<{ end: number }>;

  constructor(
    db: Database,
    private readonly recent: RecentMessages,
    private readonly files: SegmentFiles | undefined,
    /** A step deletes through the index, so the log's deferred rows are written first. */
    private readonly materializeIfDeferred: (tx: Batch) => void,
  ) {
    this.anyRowIn = db.prepare("SELECT 1 AS one FROM msg_index WHERE stream_id = ? AND start >= ? AND start < ? LIMIT 1");
    this.deleteFile = db.prepare("DELETE FROM msg_files WHERE stream_id = ? AND lo = ?");
    this.aboveFrom = db.prepare(
      `SELECT i.start AS start, ${ROW_LENGTH} AS len FROM msg_index i JOIN msgs m ON m.id = i.msg_id
       WHERE i.stream_id = ? AND i.start >= ? ORDER BY i.start DESC LIMIT ${FLOOR_STEP_ROWS}`,
    );
    this.deleteRowsFrom = db.prepare("DELETE FROM msgs WHERE id IN (SELECT msg_id FROM msg_index WHERE stream_id = ? AND start >= ?)");
    this.deleteIndexFrom = db.prepare("DELETE FROM msg_index WHERE stream_id = ? AND start >= ?");
    this.markDropped = db.prepare("INSERT OR IGNORE INTO dropped_streams (stream_id) VALUES (?)");
    this.dropped = db.prepare("SELECT stream_id FROM dropped_streams ORDER BY stream_id");
    this.unmarkDropped = db.prepare("DELETE FROM dropped_streams WHERE stream_id = ?");
    // Rows wholly below the floor: a JSON row may hold messages on both sides of it, and stays.
    this.belowFloor = db.prepare(
      `SELECT i.start AS start, ${ROW_LENGTH} AS len FROM msg_index i JOIN msgs m ON m.id = i.msg_id
       WHERE i.stream_id = ?1 AND i.start < ?2 AND i.start + ${ROW_LENGTH} <= ?2 ORDER BY i.start LIMIT ${FLOOR_STEP_ROWS}`,
    );
    this.deleteRowsUpTo = db.prepare("DELETE FROM msgs WHERE id IN (SELECT msg_id FROM msg_index WHERE stream_id = ? AND start <= ?)");
    this.deleteIndexUpTo = db.prepare("DELETE FROM msg_index WHERE stream_id = ? AND start <= ?");
    this.lowestEnd = db.prepare(
      `SELECT i.start + ${ROW_LENGTH} AS end FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ? ORDER BY i.start LIMIT 1`,
    );
  }

  /**
   * Deletes a stream's messages: marks them dropped, in this transaction, and the reclaimer deletes
   * them behind it in bounded steps (dropStep), so deleting a 1 GiB stream holds the writer no
   * longer than deleting a small one. Nothing reads a deleted stream's rows: its id is never reused.
   */
  deleteStream(tx: Batch, streamId: number): void {
    this.markDropped.run(streamId);
    tx.log.deleted.push(streamId);
  }

  /** Dropped streams whose rows are not all deleted yet (a crash may leave some). */
  droppedStreams(): number[] {
    return this.dropped.all().map((r) => r.stream_id);
  }

  /** Deletes a bounded batch of a dropped stream's rows; once none are left, it is no longer marked. */
  dropStep(tx: Batch, streamId: number): { freed: number; more: boolean } {
    const step = this.deleteFrom(tx, streamId, 0);
    if (!step.more) this.unmarkDropped.run(streamId);
    return step;
  }

  /**
   * Whether any row of the stream wholly below `floor` is still stored (one index seek). A held
   * message below it may share its row with messages above (a JSON append), which then stays: the
   * step this schedules finds nothing to delete.
   */
  hasRowsBelow(streamId: number, floor: number): boolean {
    const held = this.recent.held(streamId);
    if (held && held.entries[held.head]!.start < floor) return true;
    const lowest = this.lowestEnd.get(streamId);
    return lowest !== null && lowest.end <= floor;
  }

  /**
   * Deletes a bounded batch of the stream's rows wholly below `floor` (a message boundary). Reads
   * below the floor are refused already; this frees the space.
   */
  deleteBelow(tx: Batch, streamId: number, floor: number): { freed: number; more: boolean } {
    return this.deleteStep(tx, streamId, this.belowFloor.iterate(streamId, floor), (last) => {
      this.deleteRowsUpTo.run(streamId, last);
      this.deleteIndexUpTo.run(streamId, last);
    });
  }

  /**
   * Deletes a bounded batch of the stream's messages at or above `from` (a message boundary), the
   * newest first: rows of a deleted source above what its forks read, or all of a dropped stream's.
   */
  deleteFrom(tx: Batch, streamId: number, from: number): { freed: number; more: boolean } {
    return this.deleteStep(tx, streamId, this.aboveFrom.iterate(streamId, from), (last) => {
      this.deleteRowsFrom.run(streamId, last);
      this.deleteIndexFrom.run(streamId, last);
    });
  }

  /** Takes rows from `rows` up to FLOOR_STEP_ROWS or FLOOR_STEP_BYTES, then deletes up to the last one taken. */
  private deleteStep(tx: Batch, streamId: number, rows: Iterable<{ start: number; len: number }>, deleteThrough: (last: number) => void): { freed: number; more: boolean } {
    this.materializeIfDeferred(tx);
    let first = -1;
    let last = -1;
    let freed = 0;
    let taken = 0;
    for (const row of rows) {
      if (first < 0) first = row.start;
      last = row.start;
      freed += row.len;
      taken++;
      if (freed >= FLOOR_STEP_BYTES) break;
    }
    if (last < 0) return { freed: 0, more: false };
    deleteThrough(last);
    this.releaseFiles(tx, streamId, Math.min(first, last), Math.max(first, last));
    return { freed, more: taken === FLOOR_STEP_ROWS || freed >= FLOOR_STEP_BYTES };
  }

  /**
   * Segment files of the stream holding offsets in [from, to] (the rows a step deleted) none of
   * whose rows is left: their records go in this transaction, the files once it is durable
   * (segment-files.ts).
   */
  private releaseFiles(tx: Batch, streamId: number, from: number, to: number): void {
    const files = this.files;
    if (!files?.has(streamId)) return;
    for (const { lo, hi } of files.overlapping(streamId, from, to)) {
      if (this.anyRowIn.get(streamId, lo, hi)) continue;
      this.deleteFile.run(streamId, lo);
      tx.onDurable.push(() => files.forget(streamId, lo));
    }
  }
}
