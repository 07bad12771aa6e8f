// The message log. An append writes only its log rows (schema.ts); the rows that find a message
// by offset (msg_index) and the stream and producer rows it changed are written later, for every
// append since the last time at once, by `materialize`: about every 100 ms, before anything that
// needs them (a delete, a fork), and at start-up for whatever a crash left unmaterialized. Until
// then, and within a budget after, a stream's newest messages are held in memory
// (recent-messages.ts), which is where reads find them.
//
// The bookkeeping follows the transaction: a Batch collects what it wrote (LogWrites) and this
// side changes only once that transaction has committed, so a rollback needs no undo here.

import type { Database, Statement } from "bun:sqlite";
import { isJsonType } from "../../protocol/content-type";
import type { ProducerTuple } from "../../protocol/producer";
import { streamKey, type StreamState } from "../../protocol/state";
import type { Batch } from "./batch";
import { countMessages, messageEnd, messageLengths, packRows } from "./json-rows";
import { segmentAt, type Segment } from "../lineage";
import { replayRow, type LogRow } from "./log-replay";
import type { SegmentFiles } from "./segment-files";
import { LogDeletes } from "./log-deletes";
import { LogReads, type FiledRow, type MessageRow } from "./log-reads";
import { RecentMessages } from "./recent-messages";
import type { Statements } from "./rows";

/**
 * A row's parameters: its id and all ten columns for the last row of an append that carries
 * producer headers or a Stream-Seq, else the id and the six of a plain row (the guard columns are
 * NULL literals in its statement): binding is most of what an insert costs from JavaScript
 * (docs/design/message-log.md).
 */
const GUARDED_PARAMS = 11;
const PLAIN_PARAMS = 7;

const INSERT_SIZES = [32, 8, 1];

/** How long appends may wait for their deferred rows by default, and how many at most. */
export const MATERIALIZE_EVERY_MS = 100;
const MATERIALIZE_AFTER_ROWS = 8192;

export interface AppendedMessages {
  start: number;
  messages: Uint8Array[];
  producer: ProducerTuple | null;
  streamSeq: string | null;
}

export class MessageLog {
  private readonly recent: RecentMessages;
  /** Held messages whose rows are not yet in the index. */
  private unindexedRows = 0;
  private readonly lazyStreams = new Map<number, string>();
  private readonly lazyProducers = new Map<number, Set<string>>();
  private indexedUpTo: number;
  /**
   * The id the next log row gets. ursa gives log rows their ids rather than SQLite: "every row up
   * to indexed_upto is indexed" must stay true of rows written later, so an id is never given
   * twice, even after the rows with the highest ids are deleted. AUTOINCREMENT promised that too,
   * at the cost of a second WAL page in each small commit (docs/design/message-log.md). Ids given to a transaction that rolls back stay unused.
   */
  private nextId: number;
  private lastMaterializedAt: number;

  private readonly inserts = new Map<number, Statement>();
  private readonly indexRange: Statement;
  private readonly rowsFrom: Statement<FiledRow & { seg: number }>;
  private readonly countIn: Statement<{ n: number }>;
  private readonly countBefore: Statement<{ start: number; n: number | null; data: Uint8Array }>;
  private readonly copiedList: Statement<{ id: number }>;
  /** Forks made before schema version 7, which own copies of their inherited rows (lineage.ts). */
  readonly copied = new Set<number>();
  private readonly reads: LogReads;
  private readonly deletes: LogDeletes;

  constructor(
    private readonly db: Database,
    private readonly st: Statements,
    private readonly now: () => number,
    readonly everyMs = MATERIALIZE_EVERY_MS,
    recentBytes = 0,
    files?: SegmentFiles,
  ) {
    this.recent = new RecentMessages(recentBytes);
    this.reads = new LogReads(db, this.recent, files);
    this.deletes = new LogDeletes(db, this.recent, files, (tx) => {
      if (this.deferred) this.materialize(tx);
    });
    // OR ROLLBACK: a duplicate key (which would be a bug) fails the whole transaction, so SQLite
    // keeps no statement journal, which copied every index leaf the statement touched.
    this.indexRange = db.prepare(
      "INSERT OR ROLLBACK INTO msg_index (stream_id, start, msg_id) SELECT stream_id, start, id FROM msgs WHERE id > ? AND id <= ? ORDER BY stream_id, start",
    );
    this.rowsFrom = db.prepare(
      `SELECT i.start AS start, m.seg AS seg, m.data AS data, m.flen AS flen FROM msg_index i JOIN msgs m ON m.id = i.msg_id
       WHERE i.stream_id = ? AND i.start >= ? ORDER BY i.start`,
    );
    // The messages of rows from `start` on: a JSON row's are its LFs (json-rows.ts), counted as
    // characters removed, which compact JSON's valid UTF-8 makes exact.
    this.countIn = db.prepare(
      `SELECT coalesce(sum(CASE WHEN ?4 THEN length(m.data) - length(replace(m.data, x'0a', '')) ELSE 1 END), 0) AS n
       FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ?1 AND i.start >= ?2 AND i.start < ?3`,
    );
    this.countBefore = db.prepare(
      "SELECT i.start AS start, m.n AS n, m.data AS data FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ? AND i.start < ? ORDER BY i.start DESC LIMIT 1",
    );
    this.copiedList = db.prepare("SELECT id FROM streams WHERE fork_copied = 1");
    for (const { id } of this.copiedList.all()) this.copied.add(id);
    this.indexedUpTo = Number(st.getMeta.get("indexed_upto")?.value ?? 0);
    // Above every id the table holds, every id ever indexed, and every id a version 4 table's
    // AUTOINCREMENT gave (sqlite_sequence exists: other tables still use it).
    const used = db
      .query<{ id: number | null }, []>("SELECT max((SELECT coalesce(max(id), 0) FROM msgs), coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'msgs'), 0)) AS id")
      .get()!.id;
    this.nextId = Math.max(used ?? 0, this.indexedUpTo) + 1;
    this.lastMaterializedAt = now();
  }

  // ---- start-up ------------------------------------------------------------------------------

  /**
   * The states of the streams with log rows written after the last materialization, loaded from
   * their rows and brought up to date with those log rows, whose messages are held in memory as
   * if they had just committed. Only these streams are read: the rows of the others are current.
   */
  replay(load: (streamId: number) => StreamState | undefined): { key: string; state: StreamState }[] {
    const streams = new Map<number, { key: string; state: StreamState } | null>();
    const rows = this.db
      .query<LogRow & { id: number; data: Uint8Array }, [number]>(
        `SELECT id, stream_id, start, seg, length(data) AS len, data, n, producer_id, producer_epoch, producer_seq, stream_seq, at_ms
         FROM msgs WHERE id > ? ORDER BY id`,
      )
      .all(this.indexedUpTo);
    for (const row of rows) {
      let found = streams.get(row.stream_id);
      if (found === undefined) {
        const state = load(row.stream_id);
        streams.set(row.stream_id, (found = state ? { key: streamKey(state.bucket, state.name), state } : null));
      }
      if (!found) continue;
      found.state = replayRow(found.state, row);
      const json = isJsonType(found.state.contentType);
      for (let at = 0; at < row.data.length; ) {
        const end = json ? messageEnd(row.data, at) : row.data.length;
        this.recent.add({ id: row.id, streamId: row.stream_id, start: row.start + at, data: at === 0 && end === row.data.length ? row.data : row.data.subarray(at, end) });
        this.unindexedRows++;
        at = end;
      }
      this.lazyStreams.set(row.stream_id, found.key);
      if (row.producer_id !== null) this.producerSet(this.lazyProducers, row.stream_id).add(row.producer_id);
    }
    return [...streams.values()].filter((s) => s !== null);
  }

  /** Whether the stream's row is behind its log rows (they are folded in by `materialize`). */
  isBehind(streamId: number): boolean {
    return this.lazyStreams.has(streamId);
  }

  // ---- inside a transaction ----------------------------------------------------------------

  /**
   * Writes the messages of one accepted append to the log; `after` is the stream's state after it.
   * A JSON stream's messages share rows (json-rows.ts); each is held on its own all the same.
   */
  write(tx: Batch, key: string, after: StreamState, append: AppendedMessages, nowMs: number): void {
    const { messages, producer } = append;
    const rows = isJsonType(after.contentType) ? packRows(messages) : messages.map((data) => ({ data, count: 1 }));
    let pos = append.start;
    let n = after.messageCount - messages.length;
    let next = 0;
    for (let i = 0; i < rows.length; i++) {
      const { data, count } = rows[i]!;
      n += count;
      // The append's producer and Stream-Seq ride on its last row: a transaction never splits.
      const guarded = i === rows.length - 1 && (producer !== null || append.streamSeq !== null);
      const id = this.nextId++;
      if (guarded) {
        tx.log.rowParams.push(id, after.id, pos, append.start, data, n, producer?.id ?? null, producer?.epoch ?? null, producer?.seq ?? null, append.streamSeq, nowMs);
      } else {
        tx.log.rowParams.push(id, after.id, pos, append.start, data, n, nowMs);
      }
      tx.log.rowGuarded.push(guarded);
      for (const end = next + count; next < end; next++) {
        tx.log.entries.push({ id, streamId: after.id, start: pos, data: messages[next]! });
        pos += messages[next]!.length;
      }
    }
    tx.log.streams.set(after.id, key);
    if (producer) this.producerSet(tx.log.producers, after.id).add(producer.id);
    if (!isJsonType(after.contentType)) tx.log.byteStreamBytes.set(after.id, (tx.log.byteStreamBytes.get(after.id) ?? 0) + pos - append.start);
  }

  /**
   * Inserts the rows `write` queued, many to a statement: one INSERT of 32 rows costs less than 32
   * of one. Runs before anything that reads the log and before COMMIT.
   */
  flush(tx: Batch): void {
    const { rowParams, rowGuarded } = tx.log;
    let row = 0;
    let at = 0;
    while (row < rowGuarded.length) {
      const guarded = rowGuarded[row]!;
      let run = 1;
      while (run < INSERT_SIZES[0]! && row + run < rowGuarded.length && rowGuarded[row + run] === guarded) run++;
      const size = INSERT_SIZES.find((n) => n <= run)!;
      const width = size * (guarded ? GUARDED_PARAMS : PLAIN_PARAMS);
      this.insertStatement(size, guarded).run(...rowParams.slice(at, at + width));
      at += width;
      row += size;
    }
    rowParams.length = 0;
    rowGuarded.length = 0;
  }

  private insertStatement(rows: number, guarded: boolean): Statement {
    const key = guarded ? -rows : rows;
    let statement = this.inserts.get(key);
    if (!statement) {
      const row = guarded ? "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" : "(?, ?, ?, ?, ?, ?, NULL, NULL, NULL, NULL, ?)";
      statement = this.db.prepare(
        `INSERT INTO msgs (id, stream_id, start, seg, data, n, producer_id, producer_epoch, producer_seq, stream_seq, at_ms) VALUES ${Array.from({ length: rows }, () => row).join(", ")}`,
      );
      this.inserts.set(key, statement);
    }
    return statement;
  }

  /** Whether log rows of this producer are not yet folded into its row: start-up would replay them. */
  defers(tx: Batch, streamId: number, producerId: string): boolean {
    const before = tx.log.materializedUpTo === null && this.lazyProducers.get(streamId)?.has(producerId) === true;
    return before || tx.log.producers.get(streamId)?.has(producerId) === true;
  }

  /** Whether enough has been deferred that this transaction, not yet materializing, should. */
  due(tx: Batch): boolean {
    if (tx.log.materializedUpTo !== null) return false;
    const rows = this.unindexedRows + tx.log.entries.length;
    return rows > 0 && (rows >= MATERIALIZE_AFTER_ROWS || this.now() - this.lastMaterializedAt >= this.everyMs);
  }

  get deferred(): boolean {
    return this.unindexedRows > 0 || this.lazyStreams.size > 0;
  }

  /** Indexes every log row written so far and writes the stream and producer rows they changed. */
  materialize(tx: Batch): void {
    this.flush(tx);
    const first = tx.log.materializedUpTo === null;
    const from = tx.log.materializedUpTo ?? this.indexedUpTo;
    const upTo = this.nextId - 1;
    if (upTo > from) this.indexRange.run(from, upTo);
    const streams = first ? [this.lazyStreams, tx.log.streams] : [tx.log.streams];
    const producers = first ? [this.lazyProducers, tx.log.producers] : [tx.log.producers];
    const written = new Set<number>();
    for (const map of streams) {
      for (const [id, key] of map) {
        if (written.has(id)) continue;
        written.add(id);
        const state = tx.get(key);
        if (!state || state.id !== id || state.softDeleted) continue;
        this.st.updateHot(state);
        for (const table of producers) {
          for (const producerId of table.get(id) ?? []) {
            const p = state.producers.get(producerId);
            if (p) this.st.upsertProducer.run(id, producerId, p.epoch, p.lastSeq, p.lastStart, p.lastNext, p.updatedAtMs);
          }
        }
      }
    }
    if (upTo !== from) this.st.setMeta.run("indexed_upto", String(upTo));
    tx.log.materializedUpTo = upTo;
    tx.log.streams.clear();
    tx.log.producers.clear();
  }

  /** The lengths of the messages of the append that began at `offset`, or null if none did. */
  appendAt(tx: Batch, state: StreamState, segments: Segment[], offset: number): number[] | null {
    if (offset === state.tail) return [];
    this.materialize(tx);
    const seg = segmentAt(segments, offset);
    if (!seg || this.reads.appendStartAt(seg.id, offset) !== offset) return null;
    const json = isJsonType(state.contentType);
    const lengths: number[] = [];
    for (const row of this.rowsFrom.iterate(seg.id, offset)) {
      if (row.seg !== offset || row.start >= seg.hi) break;
      // What a fork reads of its source's append ends at the fork offset (a message boundary).
      if (json) lengths.push(...messageLengths(row.data, 0, Math.min(row.data.length, seg.hi - row.start)));
      else lengths.push(row.flen ?? row.data.length);
    }
    return lengths;
  }

  /**
   * A fork's own first rows (spec §7.4): `subBytes` into the append at `offset` (a byte prefix of
   * its message, or whole JSON messages), copied; at most one append's bytes. Everything below
   * `offset` stays where it is and is read through (lineage.ts). Returns how many messages the
   * source held below `offset`, trimmed ones included, so the fork's count carries on from there.
   */
  startFork(tx: Batch, forkId: number, source: StreamState, segments: Segment[], offset: number, subBytes: number, json: boolean): number {
    this.materialize(tx);
    const below = this.messagesBelow(source, segments, offset, json);
    const seg = segmentAt(segments, offset);
    if (subBytes > 0 && seg) {
      // The append's first `subBytes`, copied row by row, the last cut at the fork point.
      const parts: Uint8Array[] = [];
      for (const row of this.rowsFrom.iterate(seg.id, offset)) {
        if (row.start >= offset + subBytes) break;
        parts.push(this.reads.bytesOf(seg.id, [row])[0]!.data.subarray(0, offset + subBytes - row.start));
      }
      let n = below;
      let start = offset;
      for (const data of parts) {
        n += json ? countMessages(data) : 1;
        // A copy carries no append time and no guards: they were the source's (message-index.ts).
        this.insertStatement(1, true).run(this.nextId++, forkId, start, offset, data, n, null, null, null, null, null);
        start += data.length;
      }
    }
    this.materialize(tx);
    return below;
  }

  /**
   * Each row carries the stream's message count after it (`n`): one seek, less the messages of a
   * JSON row that lie at or above `offset`. Rows copied by forks before schema version 7 carry
   * none; then the messages at and above `offset` are counted.
   */
  private messagesBelow(source: StreamState, segments: Segment[], offset: number, json: boolean): number {
    if (offset === 0) return 0;
    const seg = segmentAt(segments, offset - 1);
    const row = seg ? this.countBefore.get(seg.id, offset) : null;
    if (row && row.n !== null) return json ? row.n - countMessages(row.data.subarray(offset - row.start)) : row.n;
    let above = 0;
    for (const s of segments) if (s.hi > offset) above += this.countIn.get(s.id, Math.max(s.lo, offset), Math.min(s.hi, Number.MAX_SAFE_INTEGER), json)!.n;
    return source.messageCount - above;
  }

  // ---- reads (log-reads.ts) and deletes (log-deletes.ts) -----------------------------------------

  /** The messages overlapping [start, end), starting with the one that holds `start`, across the stream's lineage. */
  read(segments: Segment[], start: number, end: number): MessageRow[] {
    return this.reads.read(segments, start, end);
  }

  isMessageStart(segments: Segment[], offset: number, json: boolean): boolean {
    return this.reads.isMessageStart(segments, offset, json);
  }

  /** Marks a deleted stream's messages dropped; the reclaimer deletes them behind it (dropStep). */
  deleteStream(tx: Batch, streamId: number): void {
    this.copied.delete(streamId);
    this.deletes.deleteStream(tx, streamId);
  }

  droppedStreams(): number[] {
    return this.deletes.droppedStreams();
  }

  dropStep(tx: Batch, streamId: number): { freed: number; more: boolean } {
    return this.deletes.dropStep(tx, streamId);
  }

  hasRowsBelow(streamId: number, floor: number): boolean {
    return this.deletes.hasRowsBelow(streamId, floor);
  }

  deleteBelow(tx: Batch, streamId: number, floor: number): { freed: number; more: boolean } {
    return this.deletes.deleteBelow(tx, streamId, floor);
  }

  deleteFrom(tx: Batch, streamId: number, from: number): { freed: number; more: boolean } {
    return this.deletes.deleteFrom(tx, streamId, from);
  }

  // ---- after a transaction commits -----------------------------------------------------------

  committed(tx: Batch): void {
    if (tx.log.materializedUpTo !== null) {
      this.indexedUpTo = tx.log.materializedUpTo;
      this.lastMaterializedAt = this.now();
      this.lazyStreams.clear();
      this.lazyProducers.clear();
      this.unindexedRows = 0;
    }
    for (const entry of tx.log.entries) {
      this.recent.add(entry);
      if (entry.id > this.indexedUpTo) this.unindexedRows++;
    }
    for (const id of tx.log.deleted) this.recent.drop(id);
    this.recent.trim(this.indexedUpTo);
    for (const [id, key] of tx.log.streams) this.lazyStreams.set(id, key);
    for (const [id, ids] of tx.log.producers) for (const p of ids) this.producerSet(this.lazyProducers, id).add(p);
  }

  private producerSet(map: Map<number, Set<string>>, streamId: number): Set<string> {
    let set = map.get(streamId);
    if (!set) map.set(streamId, (set = new Set()));
    return set;
  }
}
