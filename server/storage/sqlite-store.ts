// The SQLite-backed Store. Stream metadata and producer state live in memory, rebuilt from the
// database at start; the database is the truth. Writes go through group commit (one transaction
// and one sync for every write in an event-loop turn), and the cache changes only after COMMIT.

import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { decideAppend, type AppendRequest } from "../protocol/append";
import { decideCreate, type CreateRequest } from "../protocol/create";
import { isProtocolError, type ProtocolError } from "../protocol/errors";
import { isExpired } from "../protocol/lifetime";
import { DEFAULT_PRODUCER_LIMITS, isRemembered, type ProducerClock, type ProducerLimits, type ProducerState } from "../protocol/producer";
import { NO_QUOTAS, quotaRefusal, type Quotas } from "../protocol/quota";
import { checkAddressed } from "../protocol/read";
import type { ResourceTarget } from "../protocol/retention";
import type { PublishRequest } from "../protocol/snapshot";
import { streamKey, type SnapshotMeta, type StreamState } from "../protocol/state";
import { AttrsTable } from "./attrs-table";
import { Batch } from "./batch";
import type { DatabaseLock } from "./database-lock";
import type { CheckpointerMessage, CheckpointerStart } from "./checkpointer";
import { DiskReserve, RESERVE_SUFFIX } from "./disk-reserve";
import { FullDisk, watchSpace } from "./full-disk";
import { GroupCommit, type CommitObserver } from "./group-commit";
import { SqliteIntrospection } from "./introspection";
import { countStreams, listBuckets, listStreams } from "./listing";
import { checkIntegrity } from "./integrity";
import { MessageLog } from "./message-log";
import { openDatabase, WAL_SIZE_LIMIT } from "./open-database";
import { Pins } from "./pins";
import { liveStreamCount } from "./quota-count";
import { ResourceStore } from "./resource-store";
import { rowToState, Statements, type LoadedStreamRow, type ProducerRow } from "./rows";
import { SnapshotBlobs } from "./snapshot-blobs";
import { stderrLog, type StoreLog } from "./store-log";
import type {
  AttrsOutcome,
  BatchOutcome,
  BatchRequest,
  CreateOutcome,
  DeleteOutcome,
  ListQuery,
  PublishOutcome,
  ReadSlice,
  RetentionOutcome,
  SnapshotReader,
  SnapshotUpload,
  Store,
  StoreStats,
  StreamChange,
} from "./store";
import { StreamDamage } from "./stream-damage";
import { StreamTx } from "./stream-tx";
import { exitOnSyncFailure, walSync } from "./wal-sync";
import { failureOf, PROBE_BYTES, WriteHealth, type WriteState } from "./write-health";

export type SyncMode = "full" | "normal";

export interface SqliteStoreOptions {
  /** A file path, or ":memory:" for an ephemeral store. */
  path: string;
  sync: SyncMode;
  now?: () => number;
  /** How often expired streams are reclaimed in the background. */
  sweepIntervalMs?: number;
  /**
   * The checkpoint thread's entry point. Inside the compiled binary it must be given relative to
   * the entry module (main.ts), the only location the bundle keeps.
   */
  checkpointerUrl?: URL;
  /** How often deferred index and summary rows are written (message-log.ts). */
  materializeEveryMs?: number;
  /** How many bytes of the newest messages reads may find in memory (recent-messages.ts). */
  recentBytes?: number;
  /** What to do when the disk refuses a sync; by default the process exits. */
  onSyncFailure?: (error: unknown) => void;
  /** Whether requests other than the write being committed are in progress; none, if not given. */
  busy?: () => boolean;
  /** How long idle producers are remembered and how many a stream holds (spec §5.3). */
  producerLimits?: ProducerLimits;
  /** Caps on buckets and on streams per bucket; none if not given. */
  quotas?: Quotas;
  /** Told each transaction's size and time, and each sync's. */
  commitObserver?: CommitObserver;
  /** Where the checkpoint thread's trouble is reported; stderr if not given. */
  onCheckpointMessage?: (message: CheckpointerMessage) => void;
  /** Bytes held in reserve beside the database, given up when the disk fills (disk-reserve.ts); none if not given. */
  reserveBytes?: number;
  /** The integrity check thread's entry point, given as `checkpointerUrl` is; the check runs unless false. */
  integrityCheckUrl?: URL | false;
  /** Where a full disk and a damaged database are reported; stderr if not given. */
  log?: StoreLog;
}


export class SqliteStore implements Store {
  private readonly db: Database;
  private readonly st: Statements;
  private readonly log: MessageLog;
  /** Durable state: what reads see. */
  private readonly cache = new Map<string, StreamState>();
  /** Committed, not yet durable: what the next writes are decided against. */
  private readonly pending = new Map<string, StreamState | null>();
  private readonly writes: GroupCommit<Batch>;
  private readonly listeners: ((changes: StreamChange[]) => void)[] = [];
  private readonly now: () => number;
  private readonly pendingReaps = new Set<string>();
  private readonly touchPersistedAt = new Map<number, number>();
  private readonly tx: StreamTx;
  private readonly resources: ResourceStore;
  /** Streams in the cache that are not soft-deleted sources, kept as the cache changes. */
  private liveStreams = 0;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private checkpointer: Worker | undefined;
  /** Held for the store's whole life; dropping the reference would let GC release the lock. */
  private readonly lock: DatabaseLock | undefined;
  /** What the single-process lock is (database-lock.ts), for the start-up log; none in memory. */
  get lockHeld(): string | undefined {
    return this.lock?.held;
  }
  private materializeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Reused by every decision (its time set first), so an append allocates no clock of its own. */
  private readonly clock: ProducerClock;
  private readonly quotas: Quotas;
  readonly introspection: SqliteIntrospection;
  private readonly path: string;
  private readonly health: WriteHealth;
  private readonly fullDisk: FullDisk | undefined;
  private readonly damage: StreamDamage;
  private integrityCheck: Worker | undefined;
  private readonly report: StoreLog;
  private appendedBytes = 0;
  private appendedMessages = 0;

  constructor(options: SqliteStoreOptions) {
    this.now = options.now ?? Date.now;
    this.quotas = options.quotas ?? NO_QUOTAS;
    this.clock = { nowMs: 0, limits: options.producerLimits ?? DEFAULT_PRODUCER_LIMITS };
    this.path = options.path;
    const onDisk = options.path !== ":memory:";
    const log = (this.report = options.log ?? stderrLog);
    const reserve = onDisk ? new DiskReserve(options.path, options.reserveBytes ?? 0) : undefined;
    ({ db: this.db, lock: this.lock } = openDatabase(options.path, () => reserve && FullDisk.beforeOpen(reserve)));
    this.health = new WriteHealth(() => this.fullDisk?.entered());
    this.damage = new StreamDamage(log);
    // Anything that fails from here on closes the database and lets go of the lock again.
    try {
      const busy = options.busy ?? (() => false);
      if (onDisk) {
        this.checkpointer = new Worker(options.checkpointerUrl ?? new URL("./checkpointer.ts", import.meta.url));
        const report = options.onCheckpointMessage ?? ((m: CheckpointerMessage) => console.error(`ursa: ${m.message}${m.error ? `: ${m.error}` : ""}`));
        this.checkpointer.onmessage = (event: MessageEvent<CheckpointerMessage>) => {
          report(event.data);
          // A checkpoint that cannot grow the database file while writes still fit in the WAL's
          // old space would let the WAL fill with pages that need room the disk lacks: full now.
          if (event.data.code === "SQLITE_FULL") this.health.becomeFull();
        };
        this.checkpointer.postMessage({ path: options.path, intervalMs: 100, walLimitBytes: WAL_SIZE_LIMIT } satisfies CheckpointerStart);
      }
      this.st = new Statements(this.db);
      this.log = new MessageLog(this.db, this.st, this.now, options.materializeEveryMs, options.recentBytes);
      // Snapshot reads: a second connection without a memory map, on disk (snapshot-blobs.ts).
      const reader = onDisk ? new Database(options.path, { readonly: true, strict: true }) : this.db;
      const attrs = new AttrsTable(this.db);
      const blobs = new SnapshotBlobs(this.db, reader);
      const pins = new Pins();
      this.tx = new StreamTx({
        st: this.st,
        log: this.log,
        attrs,
        blobs,
        reclaimer: () => this.resources.reclaimer,
        now: this.now,
        forget: (id) => this.touchPersistedAt.delete(id),
        damage: this.damage,
      });
      this.load();
      this.introspection = new SqliteIntrospection(this.db, { get: (key) => this.get(key), producerCount: (s) => this.producers(s).length, now: this.now });
      this.writes = new GroupCommit<Batch>({
        begin: this.st.begin,
        commit: this.st.commit,
        rollback: this.st.rollback,
        open: () => new Batch(this.pending, this.cache),
        abort: (batch) => batch.rollback(),
        finish: (batch) => {
          for (const [key, full] of batch.dirty) {
            const state = batch.overlay.get(key);
            if (!state) continue;
            if (full) this.st.update(state);
            else this.st.updateHot(state);
          }
          this.log.flush(batch);
          if (this.log.due(batch)) this.log.materialize(batch);
        },
        committed: (batch) => {
          // A client's write (or the probe) that commits shows the disk takes writes again; the
          // store's own upkeep may need no new space, so it shows nothing.
          if (batch.clientWrite) this.health.succeeded();
          for (const [key, state] of batch.overlay) this.pending.set(key, state);
          this.log.committed(batch);
          this.scheduleMaterialize();
        },
        durable: (batch) => this.install(batch),
        sync: onDisk && options.sync === "full" ? walSync(options.path) : undefined,
        syncFailed: options.onSyncFailure ?? exitOnSyncFailure,
        failed: (error) => this.health.failed(error),
        mayHoldLoop: (batch) => batch.small() && !busy(),
      }, options.commitObserver);
      this.resources = new ResourceStore({
        db: this.db,
        reader,
        log: this.log,
        attrs,
        blobs,
        pins,
        tx: this.tx,
        submit: (run) => this.writes.submit(run),
        producerClock: () => this.producerClock(),
      });
      this.resources.reclaimLeftovers(this.cache);
      this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 5_000);
      this.sweeper.unref();
      // Whatever start-up replayed is written out as soon as the writer is idle.
      this.scheduleMaterialize();
      this.fullDisk = reserve && watchSpace({ db: this.db, dbPath: options.path, reserve, health: this.health, log, submit: (run) => this.writes.submit(run), probe: () => this.probeRow() });
      if (onDisk && options.integrityCheckUrl !== false) this.integrityCheck = checkIntegrity(options.integrityCheckUrl ?? new URL("./integrity-check.ts", import.meta.url), options.path, this.health, log);
    } catch (error) {
      void this.checkpointer?.terminate();
      this.db.close();
      this.lock?.release();
      throw error;
    }
  }

  private load(): void {
    const producers = new Map<number, Map<string, ProducerState>>();
    for (const p of this.db.query<ProducerRow, []>("SELECT * FROM producers").all()) {
      let m = producers.get(p.stream_id);
      if (!m) producers.set(p.stream_id, (m = new Map()));
      m.set(p.producer_id, { epoch: p.epoch, lastSeq: p.last_seq, lastStart: p.last_start, lastNext: p.last_next, updatedAtMs: p.updated_at_ms });
    }
    const refs = new Map<number, number>();
    const rows = this.db
      .query<LoadedStreamRow, []>(
        `SELECT s.*, b.content_type AS snapshot_type, b.digest AS snapshot_digest, b.size AS snapshot_size
         FROM streams s LEFT JOIN snapshot_blobs b ON b.id = s.snapshot_blob_id`,
      )
      .all();
    for (const r of rows) if (r.fork_source_id !== null) refs.set(r.fork_source_id, (refs.get(r.fork_source_id) ?? 0) + 1);
    const byId = new Map<number, { key: string; state: StreamState }>();
    for (const r of rows) {
      byId.set(r.id, { key: streamKey(r.bucket, r.name), state: rowToState(r, producers.get(r.id) ?? new Map(), refs.get(r.id) ?? 0) });
    }
    this.log.replay(byId);
    for (const { key, state } of byId.values()) {
      this.cache.set(key, state);
      this.liveStreams += isLive(state);
    }
  }

  /** Writes what the log deferred once writes pause, so a restart has little to replay. */
  private scheduleMaterialize(): void {
    if (this.materializeTimer !== undefined || !this.log.deferred) return;
    this.materializeTimer = setTimeout(() => {
      this.materializeTimer = undefined;
      if (!this.log.deferred) return;
      this.writes.submit((tx) => this.log.materialize(tx)).catch(() => this.scheduleMaterialize());
    }, this.log.everyMs);
    this.materializeTimer.unref();
  }

  private install(batch: Batch): void {
    this.appendedBytes += batch.appendedBytes;
    this.appendedMessages += batch.appendedMessages;
    for (const [key, state] of batch.overlay) {
      this.liveStreams += isLive(state) - isLive(this.cache.get(key));
      if (state === null) this.cache.delete(key);
      else this.cache.set(key, state);
      if (this.pending.get(key) === state) this.pending.delete(key);
    }
    if (batch.changes.length > 0) for (const l of this.listeners) l(batch.changes);
    for (const run of batch.onDurable) run();
  }

  onChange(listener: (changes: StreamChange[]) => void): void {
    this.listeners.push(listener);
  }

  // ---- reads: durable state only ---------------------------------------------------------

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
    let rows;
    try {
      rows = this.log.read(state.id, start, wholeMessages ? Math.max(end, start + 1) : end);
    } catch (error) {
      throw this.damage.readFailed(state, error);
    }
    const chunks: Uint8Array[] = [];
    // The slice ends where its bytes do. Rows can be missing only when a delete has committed
    // and the state read is the durable one before it; claiming bytes never sent would let the
    // reader skip them.
    let pos = start;
    for (const row of rows) {
      if (row.start > pos) break;
      if (wholeMessages) {
        if (chunks.length > 0 && row.start + row.data.length > end) break;
        chunks.push(row.data);
        pos = row.start + row.data.length;
        continue;
      }
      const from = pos - row.start;
      const to = Math.min(end, row.start + row.data.length) - row.start;
      chunks.push(from === 0 && to === row.data.length ? row.data : row.data.subarray(from, to));
      pos = row.start + to;
    }
    return { chunks, end: pos };
  }

  isMessageStart(state: StreamState, offset: number): boolean {
    try {
      return offset === state.tail || this.log.isMessageStart(state.id, offset);
    } catch (error) {
      throw this.damage.readFailed(state, error);
    }
  }

  get producerLimits(): ProducerLimits {
    return this.clock.limits;
  }

  producers(state: StreamState): [string, ProducerState][] {
    const clock = this.producerClock();
    return [...state.producers].filter(([, entry]) => isRemembered(entry, clock));
  }

  private producerClock(): ProducerClock {
    this.clock.nowMs = this.now();
    return this.clock;
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
        if (s && s.id === state.id) this.st.updateTouch.run(s.touchedAtMs, s.id);
      })
      .catch(() => this.touchPersistedAt.delete(state.id));
  }

  // ---- writes: group committed -------------------------------------------------------------

  /**
   * A write a client asked for: its transaction committing shows the store takes writes. One that
   * `grows` the data is refused while the disk is full; none runs on a damaged database.
   */
  private clientWrite<T>(run: (tx: Batch) => T, grows = true): Promise<T> {
    return this.admitted(grows, () =>
      this.writes.submit((tx) => {
        tx.clientWrite = true;
        return run(tx);
      }),
    );
  }

  private admitted<T>(grows: boolean, run: () => Promise<T>): Promise<T> {
    try {
      if (grows) this.health.admitGrowth();
      else this.health.admitAny();
    } catch (error) {
      return Promise.reject(error);
    }
    return run();
  }

  append(key: string, request: AppendRequest) {
    return this.clientWrite((tx) => {
      const state = this.tx.live(tx, key);
      const decision = decideAppend(state, request, this.producerClock());
      if (decision.kind !== "accepted") return decision;
      const next = this.tx.append(tx, key, state!, decision.effect);
      const { effect } = decision;
      tx.changes.push(effect.messages.length > 0 ? { kind: "appended", state: next, start: effect.start, messages: effect.messages } : { kind: "closed", state: next });
      return decision;
    });
  }

  create(key: string, request: CreateRequest): Promise<CreateOutcome> {
    return this.clientWrite((tx): CreateOutcome => {
      const existing = this.tx.live(tx, key);
      const source = request.fork
        ? (() => {
            const state = this.tx.live(tx, request.fork.sourceKey);
            return { state, appendAt: (offset: number) => this.log.appendAt(tx, state!, offset) };
          })()
        : null;
      const decision = decideCreate(existing, request, source, (s) => this.tx.attrsOf(s));
      if (decision.kind !== "create") return decision;
      const refused = this.quotaRefusal(decision.plan.bucket, tx);
      if (refused) return refused;
      return { kind: "created", state: this.tx.create(tx, key, decision.plan) };
    });
  }

  delete(key: string, incarnation: string | null): Promise<DeleteOutcome> {
    return this.clientWrite((tx): DeleteOutcome => {
      const checked = checkAddressed(this.tx.live(tx, key), incarnation);
      if (isProtocolError(checked)) return checked;
      return { kind: "deleted", ...this.tx.delete(tx, checked) };
    }, false);
  }

  // ---- attributes, snapshots, retention, batches (resource-store.ts) ----------------------

  appendBatch(key: string, request: BatchRequest): Promise<BatchOutcome> {
    return this.admitted(true, () => this.resources.appendBatch(key, request));
  }

  attrs(state: StreamState): string | null {
    try {
      return this.resources.attrs(state);
    } catch (error) {
      throw this.damage.readFailed(state, error);
    }
  }

  putAttrs(key: string, incarnation: string | null, attrs: string | null): Promise<AttrsOutcome> {
    return this.admitted(true, () => this.resources.putAttrs(key, incarnation, attrs));
  }

  stageSnapshot(): SnapshotUpload {
    this.health.admitGrowth();
    return this.resources.stageSnapshot();
  }

  publishSnapshot(key: string, upload: SnapshotUpload, request: PublishRequest, digest: string, mentionsBoundary: boolean): Promise<PublishOutcome> {
    return this.admitted(true, () => this.resources.publishSnapshot(key, upload, request, digest, mentionsBoundary));
  }

  discardSnapshot(upload: SnapshotUpload): Promise<void> {
    return this.resources.discardSnapshot(upload);
  }

  openSnapshot(meta: SnapshotMeta): SnapshotReader {
    return this.resources.openSnapshot(meta);
  }

  advanceRetention(key: string, target: ResourceTarget, incarnation: string | null): Promise<RetentionOutcome> {
    return this.admitted(false, () => this.resources.advanceRetention(key, target, incarnation));
  }

  // ---- buckets and listings --------------------------------------------------------------------

  putBucket(bucket: string): Promise<"created" | "exists" | ProtocolError> {
    return this.clientWrite(() => {
      if (this.st.getBucket.get(bucket)) return "exists" as const;
      const refused = this.quotaRefusal(bucket, null);
      if (refused) return refused;
      this.st.insertBucket.run(bucket, this.now());
      return "created" as const;
    });
  }

  hasBucket(bucket: string): boolean {
    return this.st.getBucket.get(bucket) !== null;
  }

  getBucket(bucket: string) {
    const row = this.st.getBucket.get(bucket);
    if (!row) return undefined;
    return { bucket_id: row.bucket_id, created_at_ms: row.created_at_ms, streams: countStreams(this.db, bucket, "", (k) => this.get(k), this.now()) };
  }

  deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty"> {
    return this.clientWrite((tx) => {
      if (!this.st.getBucket.get(bucket)) return "missing" as const;
      const names = this.db.query<{ name: string }, [string]>("SELECT name FROM streams WHERE bucket = ?").all(bucket);
      // Expired streams are reclaimed here rather than counted (spec §2.3), and a soft-deleted
      // source is no live stream: its forks, in other buckets, hold it (spec §7.4).
      const live = (name: string) => this.tx.live(tx, streamKey(bucket, name))?.softDeleted === false;
      if (names.some(({ name }) => live(name))) return "not_empty" as const;
      this.st.deleteBucket.run(bucket);
      return "deleted" as const;
    }, false);
  }

  listBuckets(query: ListQuery) {
    return listBuckets(this.db, (k) => this.get(k), query, this.now());
  }

  listStreams(bucket: string, query: ListQuery) {
    return listStreams(this.db, (k) => this.get(k), bucket, query, this.now());
  }

  counts() {
    const buckets = this.db.query<{ n: number }, []>("SELECT count(*) AS n FROM buckets").get()!.n;
    return { streams: this.liveStreams, buckets };
  }

  diskFailure(error: unknown) {
    return failureOf(error);
  }

  writeState(): WriteState {
    return this.health.state;
  }

  probeWrite(): Promise<WriteState> {
    return this.health.probe(async () => {
      if (this.health.state === "full" && this.fullDisk) return this.fullDisk.attempt();
      await this.probeRow();
      // In memory there is no disk to watch: room for the probe is room.
      this.health.recovered();
    });
  }

  /**
   * Written and taken back in one transaction: it needs as much free space as an ordinary append
   * and leaves nothing but free pages behind. Not refused while full: it is how room is found.
   */
  private probeRow(): Promise<void> {
    return this.writes.submit((tx) => {
      tx.clientWrite = true;
      this.st.setMeta.run("ready_probe", "x".repeat(PROBE_BYTES));
      this.db.run("DELETE FROM meta WHERE key = 'ready_probe'");
    });
  }

  stats(): StoreStats {
    return {
      appendedBytes: this.appendedBytes,
      appendedMessages: this.appendedMessages,
      damagedReads: this.damage.errors,
      damagedStreams: this.damage.count,
      ...this.fileSizes(),
    };
  }

  private fileSizes(): { databaseBytes: number; walBytes: number; reserveBytes: number } {
    if (this.path === ":memory:") {
      const bytes = this.db.query<{ n: number }, []>("SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()").get()!.n;
      return { databaseBytes: bytes, walBytes: 0, reserveBytes: 0 };
    }
    const size = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    return { databaseBytes: size(this.path), walBytes: size(`${this.path}-wal`), reserveBytes: size(this.path + RESERVE_SUFFIX) };
  }

  /** Resolves once the reclaimer has nothing queued (pinned blobs aside). */
  reclaimed(): Promise<void> {
    return this.resources.reclaimer.settled();
  }

  async close(): Promise<void> {
    this.health.closing();
    this.fullDisk?.stop();
    void this.integrityCheck?.terminate();
    clearInterval(this.sweeper);
    clearTimeout(this.materializeTimer);
    this.resources.reclaimer.stop();
    await this.writes.drain();
    // The deferred index rows. A full or failing disk may refuse them; the log rows they index are
    // durable, and the next start replays them, so the stop goes on.
    if (this.log.deferred) {
      await this.writes.submit((tx) => this.log.materialize(tx)).catch((error: unknown) => {
        if (failureOf(error) === null) throw error;
        this.report("warn", "stopping without writing the last index rows (the next start replays them)", { error: (error as Error).message });
      });
    }
    await this.checkpointer?.terminate();
    this.resources.close();
    this.db.close();
    this.lock?.release();
  }

  // ---- inside a transaction ------------------------------------------------------------------

  /**
   * Counted inside the write's transaction, so concurrent creates cannot both take the last place;
   * `stream` is that transaction when the write creates a stream, null for an empty bucket.
   */
  private quotaRefusal(bucket: string, stream: Batch | null): ProtocolError | null {
    return quotaRefusal(
      this.quotas,
      this.st.getBucket.get(bucket) !== null,
      (upTo) => this.db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM (SELECT 1 FROM buckets LIMIT ?)").get(upTo)!.n,
      stream ? (upTo) => liveStreamCount(this.db, bucket, upTo, this.now(), (key) => this.tx.live(stream, key)) : null,
    );
  }

  private reap(key: string): void {
    if (this.pendingReaps.has(key)) return;
    this.pendingReaps.add(key);
    this.writes
      .submit((tx) => this.tx.live(tx, key))
      .catch(() => undefined)
      .finally(() => this.pendingReaps.delete(key));
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, state] of this.cache) if (!state.softDeleted && isExpired(state, now)) this.reap(key);
  }
}

const isLive = (state: StreamState | null | undefined): number => (state && !state.softDeleted ? 1 : 0);
