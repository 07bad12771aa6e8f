// The SQLite-backed Store. Stream metadata and producer state live in memory, rebuilt from the
// database at start; the database is the truth. Writes are decided on the event loop and
// committed through group commit (see group-commit.ts); on disk a worker thread runs the
// transactions, so neither SQLite nor fsync ever blocks the event loop. Readers see a write
// only once it is durable.

import { Database } from "bun:sqlite";
import { applyAppend, decideAppend, type AppendRequest } from "../protocol/append";
import { isJsonType } from "../protocol/content-type";
import { decideCreate, type CreatePlan, type CreateRequest } from "../protocol/create";
import { isProtocolError } from "../protocol/errors";
import { nextIncarnation } from "../protocol/incarnation";
import { isExpired } from "../protocol/lifetime";
import type { ProducerState } from "../protocol/producer";
import { checkAddressed } from "../protocol/read";
import { streamKey, type StreamState } from "../protocol/state";
import { InlineSink, WorkerSink, type CommitSink } from "./commit-sink";
import { GroupCommit } from "./group-commit";
import { listBuckets, listStreams } from "./listing";
import { ReadStatements, rowToState, stateRow, type ProducerRow, type StreamRow } from "./rows";
import { SCHEMA, SCHEMA_VERSION } from "./schema";
import type { SqlOp } from "./sql-ops";
import type { CreateOutcome, DeleteOutcome, ListQuery, ReadSlice, Store, StreamChange } from "./store";

export type SyncMode = "full" | "normal";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:" for an ephemeral store. */
  path: string;
  sync: SyncMode;
  now?: () => number;
  /** How often expired streams are reclaimed in the background. */
  sweepIntervalMs?: number;
  /**
   * Where the commit thread's entry point is. Inside the compiled binary it must be given relative
   * to the entry module (main.ts), which is the only location the bundle keeps.
   */
  commitWorkerUrl?: URL;
}

/**
 * One transaction's view: its own changes, over those of transactions decided but not yet
 * durable, over the durable cache that readers see. Its SQL ops are what gets committed.
 */
export class Batch {
  readonly overlay = new Map<string, StreamState | null>();
  readonly changes: StreamChange[] = [];
  readonly ops: SqlOp[] = [];
  /** Streams whose row must be written: once per transaction, not once per write. */
  readonly dirty = new Set<string>();
  constructor(
    private readonly pending: Map<string, StreamState | null>,
    private readonly cache: Map<string, StreamState>,
  ) {}
  get(key: string): StreamState | undefined {
    const mine = this.overlay.get(key);
    if (mine !== undefined) return mine ?? undefined;
    const pending = this.pending.get(key);
    return pending === undefined ? this.cache.get(key) : pending ?? undefined;
  }
  put(state: StreamState): void {
    const key = streamKey(state.bucket, state.name);
    this.overlay.set(key, state);
    this.dirty.add(key);
  }
  remove(key: string): void {
    this.overlay.set(key, null);
  }
}

export class SqliteStore implements Store {
  private readonly db: Database;
  private readonly st: ReadStatements;
  /** Durable state: what reads see. */
  private readonly cache = new Map<string, StreamState>();
  /** Decided, not yet durable: what the next writes are decided against. */
  private readonly pending = new Map<string, StreamState | null>();
  /** Every bucket, including those whose creation is not yet durable. */
  private readonly buckets = new Map<string, number>();
  private readonly writes: GroupCommit<Batch>;
  private readonly sink: CommitSink;
  private readonly listeners: ((changes: StreamChange[]) => void)[] = [];
  private readonly now: () => number;
  private readonly pendingReaps = new Set<string>();
  private readonly touchPersistedAt = new Map<number, number>();
  private lastIncarnation = 0;
  private nextStreamId = 1;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: SqliteStoreOptions) {
    this.now = options.now ?? Date.now;
    const onDisk = options.path !== ":memory:";
    this.db = new Database(options.path, { create: true, strict: true });
    if (onDisk) this.db.exec("PRAGMA journal_mode = WAL");
    this.db.exec("PRAGMA busy_timeout = 5000");
    this.db.exec(SCHEMA);
    this.st = new ReadStatements(this.db);
    this.migrate();
    this.load();
    const onFailure = (error: Error) => this.recover(error);
    this.sink = onDisk ? new WorkerSink(options.path, options.sync, options.commitWorkerUrl ?? new URL("./commit-worker.ts", import.meta.url), onFailure) : new InlineSink(this.db, onFailure);
    this.writes = new GroupCommit<Batch>(
      {
        open: () => new Batch(this.pending, this.cache),
        finish: (batch) => {
          for (const key of batch.dirty) {
            const state = batch.overlay.get(key);
            if (state) batch.ops.push({ op: "stream", row: stateRow(state) });
          }
        },
        committed: (batch) => {
          for (const [key, state] of batch.overlay) this.pending.set(key, state);
        },
        durable: (batch) => this.install(batch),
      },
      this.sink,
    );
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 5_000);
    this.sweeper.unref();
  }

  private migrate(): void {
    const version = this.st.getMeta.get("schema_version");
    if (version && Number(version.value) !== SCHEMA_VERSION) {
      throw new Error(`database schema version ${version.value} is not ${SCHEMA_VERSION}; this ursa cannot open it`);
    }
    this.st.setMeta.run("schema_version", String(SCHEMA_VERSION));
  }

  /** Rebuild every in-memory structure from what the database holds. */
  private load(): void {
    this.cache.clear();
    this.pending.clear();
    this.buckets.clear();
    this.lastIncarnation = Math.max(this.lastIncarnation, Number(this.st.getMeta.get("last_incarnation")?.value ?? 0));
    const producers = new Map<number, Map<string, ProducerState>>();
    for (const p of this.db.query<ProducerRow, []>("SELECT * FROM producers").all()) {
      let m = producers.get(p.stream_id);
      if (!m) producers.set(p.stream_id, (m = new Map()));
      m.set(p.producer_id, { epoch: p.epoch, lastSeq: p.last_seq, lastStart: p.last_start, lastNext: p.last_next, updatedAtMs: p.updated_at_ms });
    }
    const refs = new Map<number, number>();
    const rows = this.db.query<StreamRow, []>("SELECT * FROM streams").all();
    for (const r of rows) if (r.fork_source_id !== null) refs.set(r.fork_source_id, (refs.get(r.fork_source_id) ?? 0) + 1);
    for (const r of rows) {
      this.cache.set(streamKey(r.bucket, r.name), rowToState(r, producers.get(r.id) ?? new Map(), refs.get(r.id) ?? 0));
    }
    for (const b of this.db.query<{ bucket_id: string; created_at_ms: number }, []>("SELECT * FROM buckets").all()) {
      this.buckets.set(b.bucket_id, b.created_at_ms);
    }
    // Ids are never reused, even after a failed transaction: a waiter keyed by an id must never
    // be woken by another stream.
    const maxId = this.db.query<{ n: number | null }, []>("SELECT max(id) AS n FROM streams").get()!.n ?? 0;
    const seq = this.db.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'streams'").get()?.seq ?? 0;
    this.nextStreamId = Math.max(this.nextStreamId, maxId + 1, seq + 1);
  }

  /**
   * A transaction failed (a full disk, an I/O error): it and everything decided after it are
   * refused, so forget their effects and rebuild from what is durable before deciding anything new.
   */
  private recover(error: Error): void {
    console.error("ursa: a commit failed; refusing the writes it held and reloading state:", error.message);
    this.load();
  }

  private install(batch: Batch): void {
    for (const [key, state] of batch.overlay) {
      if (state === null) this.cache.delete(key);
      else this.cache.set(key, state);
      if (this.pending.get(key) === state) this.pending.delete(key);
    }
    if (batch.changes.length > 0) for (const l of this.listeners) l(batch.changes);
  }

  onChange(listener: (changes: StreamChange[]) => void): void {
    this.listeners.push(listener);
  }

  // ---- reads: durable state only -----------------------------------------------------------

  get(key: string): StreamState | undefined {
    const state = this.cache.get(key);
    if (state && !state.softDeleted && isExpired(state, this.now())) {
      this.reap(key);
      return undefined;
    }
    return state;
  }

  readRange(state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): ReadSlice {
    if (start >= state.tail) return { chunks: [], end: start };
    const end = Math.min(state.tail, start + limitBytes);
    // Array mode always carries at least one whole message, however large (spec §4.2).
    const rows = this.st.readFrom.all(state.id, start, wholeMessages ? Math.max(end, start + 1) : end);
    const chunks: Uint8Array[] = [];
    if (wholeMessages) {
      let pos = start;
      for (const row of rows) {
        if (chunks.length > 0 && row.start + row.data.length > end) break;
        chunks.push(row.data);
        pos = row.start + row.data.length;
      }
      return { chunks, end: pos };
    }
    for (const row of rows) {
      const from = Math.max(start, row.start) - row.start;
      const to = Math.min(end, row.start + row.data.length) - row.start;
      chunks.push(from === 0 && to === row.data.length ? row.data : row.data.subarray(from, to));
    }
    return { chunks, end };
  }

  isMessageStart(state: StreamState, offset: number): boolean {
    return offset === state.tail || this.st.messageAt.get(state.id, offset) !== null;
  }

  renewTtl(key: string): void {
    const state = this.cache.get(key);
    if (!state || state.ttlSeconds === null || state.softDeleted) return;
    const now = this.now();
    this.cache.set(key, { ...state, touchedAtMs: now });
    // Persisting every read's touch would make reads into writes; a quarter of the TTL is the
    // most a crash can shorten a stream's life by.
    const persisted = this.touchPersistedAt.get(state.id) ?? state.touchedAtMs;
    if (now - persisted < (state.ttlSeconds * 1000) / 4) return;
    this.touchPersistedAt.set(state.id, now);
    this.writes
      .submit((tx) => {
        const s = tx.get(key);
        if (s && s.id === state.id) tx.ops.push({ op: "touch", streamId: s.id, touchedAtMs: Math.max(s.touchedAtMs, now) });
      })
      .catch(() => this.touchPersistedAt.delete(state.id));
  }

  // ---- writes: group committed -------------------------------------------------------------

  append(key: string, request: AppendRequest) {
    return this.writes.submit((tx) => {
      const state = this.live(tx, key);
      const decision = decideAppend(state, request);
      if (decision.kind !== "accepted") return decision;
      const { effect } = decision;
      if (effect.messages.length > 0) tx.ops.push({ op: "messages", streamId: state!.id, start: effect.start, data: effect.messages });
      const next = applyAppend(state!, effect, this.now());
      if (effect.producer) this.saveProducer(tx, next, effect.producer.id);
      tx.put(next);
      tx.changes.push(effect.messages.length > 0 ? { kind: "appended", state: next, start: effect.start, messages: effect.messages } : { kind: "closed", state: next });
      return decision;
    });
  }

  async create(key: string, request: CreateRequest): Promise<CreateOutcome> {
    // A fork reads its source's rows to check the fork offset; the event loop's connection sees
    // only committed rows, so let every decided write commit first.
    if (request.fork) await this.writes.drain();
    return this.writes.submit((tx): CreateOutcome => {
      const existing = this.live(tx, key);
      const source = request.fork
        ? (() => {
            const state = this.live(tx, request.fork.sourceKey);
            return { state, appendAt: (offset: number) => this.appendAt(state!, offset) };
          })()
        : null;
      const decision = decideCreate(existing, request, source);
      if (decision.kind !== "create") return decision;
      return { kind: "created", state: this.materialize(tx, decision.plan, source?.state) };
    });
  }

  delete(key: string, incarnation: string | null): Promise<DeleteOutcome> {
    return this.writes.submit((tx): DeleteOutcome => {
      const checked = checkAddressed(this.live(tx, key), incarnation);
      if (isProtocolError(checked)) return checked;
      if (checked.forkRefs > 0) {
        this.softDelete(tx, checked);
        return { kind: "deleted", soft: true };
      }
      this.hardDelete(tx, checked);
      return { kind: "deleted", soft: false };
    });
  }

  putBucket(bucket: string): Promise<"created" | "exists"> {
    return this.writes.submit((tx) => {
      if (this.buckets.has(bucket)) return "exists" as const;
      this.addBucket(tx, bucket);
      return "created" as const;
    });
  }

  getBucket(bucket: string) {
    const created = this.buckets.get(bucket);
    if (created === undefined) return undefined;
    return { bucket_id: bucket, created_at_ms: created, streams: this.listStreams(bucket, { prefix: "", after: null, limit: 1 }).total };
  }

  deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty"> {
    return this.writes.submit((tx) => {
      if (!this.buckets.has(bucket)) return "missing" as const;
      const keys = this.db.query<{ name: string }, [string]>("SELECT name FROM streams WHERE bucket = ?").all(bucket).map(({ name }) => streamKey(bucket, name));
      for (const key of this.pending.keys()) if (key.startsWith(`${bucket}/`)) keys.push(key);
      // Expired streams are reclaimed here rather than counted (spec §2.3).
      if (keys.some((key) => this.live(tx, key) !== undefined)) return "not_empty" as const;
      this.buckets.delete(bucket);
      tx.ops.push({ op: "drop-bucket", bucket });
      return "deleted" as const;
    });
  }

  listBuckets(query: ListQuery) {
    return listBuckets(this.db, query);
  }

  listStreams(bucket: string, query: ListQuery) {
    return listStreams(this.db, (k) => this.get(k), bucket, query);
  }

  counts() {
    let streams = 0;
    for (const s of this.cache.values()) if (!s.softDeleted) streams++;
    return { streams, buckets: this.buckets.size };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.writes.drain();
    await this.sink.close();
    this.db.close();
  }

  // ---- inside a transaction ------------------------------------------------------------------

  /** The stream's state in this transaction, reclaiming it first if it has expired. */
  private live(tx: Batch, key: string): StreamState | undefined {
    const state = tx.get(key);
    if (!state || state.softDeleted || !isExpired(state, this.now())) return state;
    if (state.forkRefs > 0) this.softDelete(tx, state);
    else this.hardDelete(tx, state);
    return state.forkRefs > 0 ? tx.get(key) : undefined;
  }

  private appendAt(state: StreamState, offset: number): number[] | null {
    if (offset === state.tail) return [];
    const at = this.st.messageAt.get(state.id, offset);
    if (!at || at.seg !== offset) return null;
    const lengths: number[] = [];
    for (const row of this.st.appendRows.iterate(state.id, offset)) {
      if (row.seg !== offset) break;
      lengths.push(row.len);
    }
    return lengths;
  }

  private addBucket(tx: Batch, bucket: string): void {
    const now = this.now();
    this.buckets.set(bucket, now);
    tx.ops.push({ op: "bucket", bucket, createdAtMs: now });
  }

  private materialize(tx: Batch, plan: CreatePlan, source: StreamState | undefined): StreamState {
    const now = this.now();
    this.lastIncarnation = nextIncarnation(this.lastIncarnation, now);
    const incarnation = String(this.lastIncarnation);
    tx.ops.push({ op: "meta", key: "last_incarnation", value: incarnation });
    if (!this.buckets.has(plan.bucket)) this.addBucket(tx, plan.bucket);
    let state: StreamState = {
      id: this.nextStreamId++,
      bucket: plan.bucket,
      name: plan.name,
      incarnation,
      contentType: plan.contentType,
      tail: 0,
      messageCount: 0,
      closed: false,
      closedBy: null,
      lastSeq: plan.streamSeq,
      ttlSeconds: plan.lifetime.ttlSeconds,
      expiresAtMs: plan.lifetime.expiresAtMs,
      touchedAtMs: now,
      createdAtMs: now,
      lastWriteAtMs: null,
      fork: plan.fork && { sourceKey: plan.fork.sourceKey, sourceId: plan.fork.sourceId, offset: plan.fork.offset, subOffset: plan.fork.subOffset },
      softDeleted: false,
      forkRefs: 0,
      attrs: plan.attrs,
      producers: new Map(),
    };
    if (plan.fork && source) {
      // Copy-on-fork (spec §7.4): the fork owns its inherited bytes, so nothing done to the
      // source later (appends, deletion) can reach it.
      const { sourceId, offset, subBytes, subMessages } = plan.fork;
      tx.ops.push({ op: "copy-below", to: state.id, from: sourceId, offset });
      const below = offset === source.tail ? source.messageCount : this.st.countBelow.get(sourceId, offset)!.n;
      if (subBytes > 0) {
        tx.ops.push(
          isJsonType(state.contentType)
            ? { op: "copy-rows", to: state.id, from: sourceId, start: offset, end: offset + subBytes }
            : { op: "copy-prefix", to: state.id, from: sourceId, offset, bytes: subBytes },
        );
      }
      state = { ...state, tail: offset + subBytes, messageCount: below + subMessages };
      tx.put({ ...source, forkRefs: source.forkRefs + 1 });
    }
    if (plan.messages.length > 0 || plan.close || plan.producer) {
      const start = state.tail;
      if (plan.messages.length > 0) tx.ops.push({ op: "messages", streamId: state.id, start, data: plan.messages });
      let bytes = 0;
      for (const m of plan.messages) bytes += m.length;
      state = applyAppend(state, { start, messages: plan.messages, bytes, close: plan.close, streamSeq: null, producer: plan.producer }, now);
      if (plan.producer) this.saveProducer(tx, state, plan.producer.id);
    }
    tx.put(state);
    return state;
  }

  private saveProducer(tx: Batch, state: StreamState, producerId: string): void {
    const p = state.producers.get(producerId)!;
    tx.ops.push({ op: "producer", streamId: state.id, producerId, epoch: p.epoch, lastSeq: p.lastSeq, lastStart: p.lastStart, lastNext: p.lastNext, updatedAtMs: p.updatedAtMs });
  }

  private softDelete(tx: Batch, state: StreamState): void {
    tx.ops.push({ op: "drop", streamId: state.id, keepRow: true });
    tx.put({ ...state, softDeleted: true, producers: new Map() });
    tx.changes.push({ kind: "gone", id: state.id, key: streamKey(state.bucket, state.name) });
  }

  private hardDelete(tx: Batch, state: StreamState): void {
    const key = streamKey(state.bucket, state.name);
    tx.ops.push({ op: "drop", streamId: state.id, keepRow: false });
    this.touchPersistedAt.delete(state.id);
    tx.remove(key);
    tx.changes.push({ kind: "gone", id: state.id, key });
    if (!state.fork) return;
    const source = tx.get(state.fork.sourceKey);
    if (!source || source.id !== state.fork.sourceId) return;
    const released = { ...source, forkRefs: source.forkRefs - 1 };
    // The last fork of a soft-deleted source takes the source with it, up the chain.
    if (released.softDeleted && released.forkRefs === 0) this.hardDelete(tx, released);
    else tx.put(released);
  }

  private reap(key: string): void {
    if (this.pendingReaps.has(key)) return;
    this.pendingReaps.add(key);
    this.writes
      .submit((tx) => this.live(tx, key))
      .catch(() => undefined)
      .finally(() => this.pendingReaps.delete(key));
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, state] of this.cache) if (!state.softDeleted && isExpired(state, now)) this.reap(key);
  }
}
