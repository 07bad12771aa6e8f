// Reading a stream's messages back: from the index and its rows, from segment files where runs of
// them moved (segment-files.ts), and from memory for the newest (recent-messages.ts), across a
// fork's lineage (lineage.ts).

import type { Database, Statement } from "bun:sqlite";
import { segmentAt, type Segment } from "../lineage";
import { startsMessage } from "./json-rows";
import { MMAP_LIMIT_BYTES } from "./open-database";
import { firstEndingAfter, type RecentMessages } from "./recent-messages";
import { SegmentDamage, type SegmentFiles } from "./segment-files";

export interface MessageRow {
  start: number;
  data: Uint8Array;
}

/** A row as read where it may be in a segment file: `flen` is its length there, else null. */
export interface FiledRow extends MessageRow {
  flen: number | null;
}

export class LogReads {
  private readonly readFrom: Statement<MessageRow>;
  private readonly readFiledFrom: Statement<FiledRow>;
  private readonly segAt: Statement<{ seg: number }>;
  private readonly rowAt: Statement<{ start: number; data: Uint8Array }>;
  private readonly pageCount: Statement<{ n: number }>;
  private readonly pageSize: number;
  /** The size of the database when its memory map was last made to cover it (mapCurrent). */
  private mappedBytes = 0;

  constructor(
    private readonly db: Database,
    private readonly recent: RecentMessages,
    private readonly files: SegmentFiles | undefined,
  ) {
    // Starts at the message holding `start` (reads may begin inside a byte-stream append). A join,
    // not a subquery per row, which is slower on long reads (docs/design/message-log.md).
    this.readFrom = db.prepare(
      `SELECT i.start AS start, m.data AS data FROM msg_index i JOIN msgs m ON m.id = i.msg_id
       WHERE i.stream_id = ?1 AND i.start < ?3
       AND i.start >= coalesce((SELECT max(start) FROM msg_index WHERE stream_id = ?1 AND start <= ?2), 0) ORDER BY i.start`,
    );
    // The same, for a stream some of whose rows are in segment files.
    this.readFiledFrom = db.prepare(
      `SELECT i.start AS start, m.data AS data, m.flen AS flen FROM msg_index i JOIN msgs m ON m.id = i.msg_id
       WHERE i.stream_id = ?1 AND i.start < ?3
       AND i.start >= coalesce((SELECT max(start) FROM msg_index WHERE stream_id = ?1 AND start <= ?2), 0) ORDER BY i.start`,
    );
    this.segAt = db.prepare("SELECT (SELECT seg FROM msgs WHERE id = i.msg_id) AS seg FROM msg_index i WHERE i.stream_id = ? AND i.start = ?");
    this.rowAt = db.prepare(
      "SELECT i.start AS start, m.data AS data FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ? AND i.start <= ? ORDER BY i.start DESC LIMIT 1",
    );
    this.pageCount = db.prepare("SELECT page_count AS n FROM pragma_page_count()");
    this.pageSize = db.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
  }

  /** Where the append holding the row that starts at `offset` began, or undefined if no row starts there. */
  appendStartAt(streamId: number, offset: number): number | undefined {
    return this.segAt.get(streamId, offset)?.seg;
  }

  /** The messages overlapping [start, end), starting with the one that holds `start`, across the stream's lineage. */
  read(segments: Segment[], start: number, end: number): MessageRow[] {
    if (segments.length === 1) return this.readOwn(segments[0]!.id, start, end);
    const rows: MessageRow[] = [];
    for (const seg of segments) {
      if (seg.hi <= start || seg.lo >= end) continue;
      for (const row of this.readOwn(seg.id, Math.max(start, seg.lo), Math.min(end, seg.hi))) rows.push(row);
    }
    return rows;
  }

  /** One stream's own rows overlapping [start, end). */
  private readOwn(streamId: number, start: number, end: number): MessageRow[] {
    const held = this.recent.held(streamId);
    const boundary = held ? held.entries[held.head]!.start : Infinity;
    // Below the first held message, from the index; from it on, from memory (held messages may be
    // indexed too, so the index is not asked past it).
    if (start < boundary) this.mapCurrent();
    const filed = this.files?.has(streamId) === true;
    const rows: MessageRow[] = start >= boundary ? [] : filed ? this.bytesOf(streamId, this.readFiledFrom.all(streamId, start, Math.min(end, boundary))) : this.readFrom.all(streamId, start, Math.min(end, boundary));
    if (!held) return rows;
    // A JSON row whose first messages are let go of while its last are still held ends at them.
    const last = rows[rows.length - 1];
    if (last && last.start + last.data.length > boundary) rows[rows.length - 1] = { start: last.start, data: last.data.subarray(0, boundary - last.start) };
    for (let i = firstEndingAfter(held, start); i < held.entries.length && held.entries[i]!.start < end; i++) rows.push(held.entries[i]!);
    return rows;
  }

  /**
   * The rows with their bytes: those whose bytes are in a segment file (`flen`) are read from it,
   * each run of them in one read.
   */
  bytesOf<R extends FiledRow>(streamId: number, rows: R[]): R[] {
    for (let i = 0; i < rows.length; ) {
      const first = rows[i]!;
      if (first.flen === null) {
        i++;
        continue;
      }
      const range = this.files?.at(streamId, first.start);
      if (!range) throw new SegmentDamage(`no segment file holds offset ${first.start} of stream ${streamId}`);
      let j = i;
      let end = first.start;
      for (; j < rows.length && rows[j]!.flen !== null && rows[j]!.start === end && end < range.hi; j++) end += rows[j]!.flen!;
      const bytes = this.files!.read(streamId, range.lo, first.start, end);
      for (let k = i; k < j; k++) rows[k]!.data = bytes.subarray(rows[k]!.start - first.start, rows[k]!.start - first.start + rows[k]!.flen!);
      i = j;
    }
    return rows;
  }

  /**
   * SQLite maps the database file at the size it has when first read, and maps it again only when
   * it sees another connection's commit. This connection makes every commit, and the checkpoint
   * thread is what grows the file: a server that started empty kept a one-page map for good, and
   * every page past it was a pread into the page cache and a copy out
   * (docs/design/memory-mapped-reads.md). Changing the map's limit maps the file again at its present size,
   * once it has grown by a quarter since the last time: each page then faults in once per map.
   */
  private mapCurrent(): void {
    const bytes = this.pageCount.get()!.n * this.pageSize;
    if (bytes <= this.mappedBytes * 1.25 || this.mappedBytes >= MMAP_LIMIT_BYTES) return;
    this.mappedBytes = bytes;
    this.db.exec(`PRAGMA mmap_size = ${MMAP_LIMIT_BYTES - this.pageSize}`);
    this.db.exec(`PRAGMA mmap_size = ${MMAP_LIMIT_BYTES}`);
  }

  isMessageStart(segments: Segment[], offset: number, json: boolean): boolean {
    const seg = segmentAt(segments, offset);
    if (!seg) return false;
    const held = this.recent.held(seg.id);
    if (held && offset >= held.entries[held.head]!.start) {
      const i = firstEndingAfter(held, offset);
      return i < held.entries.length && held.entries[i]!.start === offset;
    }
    if (!json) return this.appendStartAt(seg.id, offset) !== undefined;
    const row = this.rowAt.get(seg.id, offset);
    return row !== null && startsMessage(row.data, offset - row.start);
  }
}
