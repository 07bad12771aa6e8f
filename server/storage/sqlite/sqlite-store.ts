// The SQLite-backed Store, and the wiring of its mechanisms. The database is the truth; a
// stream's metadata and producer state are loaded from it on first touch into a bounded cache
// (stream-cache.ts), so start-up reads only what the log says a crash left behind. Writes go
// through group commit (one transaction and one sync for every write in an event-loop turn), and
// the cache changes only once they are durable (batch-lifecycle.ts).
//
// The constructor builds each mechanism once what it needs exists; where two need each other
// (the cache and the TTL touches, the health and the full-disk watch, group commit and what it
// tells of commits), the later one registers with the earlier.

import { SqliteSubscriptions } from "./subscriptions-table";
import type { Database } from "bun:sqlite";
import { isJsonType } from "../../protocol/content-type";
import type { ProtocolError } from "../../protocol/errors";
import { isExpired } from "../../protocol/lifetime";
import { DEFAULT_PRODUCER_LIMITS, isRemembered, type ProducerClock, type ProducerLimits, type ProducerState } from "../../protocol/producer";
import { NO_QUOTAS } from "../../protocol/quota";
import { streamKey, type SnapshotMeta, type StreamState } from "../../protocol/state";
import type { WritePlan } from "../../protocol/writes";
import { lineageOf, type Segment } from "../lineage";
import type { Count } from "../prefix-count";
import type { BucketInfo, BucketSummary, FileSpan, ListQuery, Page, ReadSlice, SnapshotReader, SnapshotUpload, Store, StoreStats, StreamSummary, ToldChange } from "../store";
import { stderrLog } from "../store-log";
import { StreamStore } from "../stream-store";
import { failureOf, PROBE_BYTES, WriteHealth, type WriteState } from "../write-health";
import { AttrsTable } from "./attrs-table";
import type { Batch } from "./batch";
import { BatchLifecycle } from "./batch-lifecycle";
import { SqliteBuckets } from "./buckets";
import { startCheckpoints, type Checkpoints } from "./checkpoints";
import type { DatabaseLock } from "./database-lock";
import { databaseFileSizes } from "./database-files";
import { DiskReserve } from "./disk-reserve";
import { DurableCounts } from "./durable-counts";
import { FullDisk, watchSpace } from "./full-disk";
import { GroupCommit } from "./group-commit";
import { checkIntegrity } from "./integrity";
import { SqliteIntrospection } from "./introspection";
import { jsonMessages } from "./json-rows";
import { Listing } from "./listing";
import { Materializer } from "./materializer";
import { MessageLog } from "./message-log";
import { openDatabase } from "./open-database";
import { Pins } from "./pins";
import { sqliteReclaimer } from "./reclaim-steps";
import type { Reclaimer } from "./reclaimer";
import { ResourceStore } from "./resource-store";
import { sliceRows } from "./row-slices";
import { Statements } from "./rows";
import { SegmentFiles } from "./segment-files";
import { fileSpan } from "./segment-spans";
import { startTiering, type SegmentTiering } from "./segment-tiering";
import { SnapshotBlobs } from "./snapshot-blobs";
import { SnapshotFiles } from "./snapshot-files";
import { SnapshotReads } from "./snapshot-reads";
import type { SqliteStoreOptions } from "./sqlite-store-options";
import { mayHoldUnreachedRows, removeOrphanSnapshotFiles, sweepSegmentFiles } from "./start-up-sweeps";
import { StateLoader } from "./state-loader";
import { StreamCache } from "./stream-cache";
import { StreamCounts } from "./stream-counts";
import { StreamDamage } from "./stream-damage";
import { StreamTx } from "./stream-tx";
import { TtlTouches } from "./ttl-touches";
import { walBytesOf } from "./wal-lag";
import { exitOnSyncFailure, walSync } from "./wal-sync";

export type { SqliteStoreOptions, SyncMode } from "./sqlite-store-options";

export class SqliteStore extends StreamStore implements Store {
  private readonly now: () => number;
  /** Reused by every decision (its time set first), so an append allocates no clock of its own. */
  private readonly clock: ProducerClock;
  private readonly path: string;
  /** Whether requests besides live reads are in progress (the server says; never in tests). */
  private readonly busy: () => boolean;
  private readonly db: Database;
  /** Held for the store's whole life; dropping the reference would let GC release the lock. */
  private readonly lock: DatabaseLock | undefined;
  private readonly health = new WriteHealth();
  /** Committed, not yet durable: what the next writes are decided against. */
  private readonly pending = new Map<string, StreamState | null>();
  private readonly pendingReaps = new Set<string>();
  private readonly st: Statements;
  private readonly damage: StreamDamage;
  /** Sealed runs of byte streams' messages in files beside a database on disk (segment-files.ts). */
  private readonly segmentFiles: SegmentFiles | undefined;
  private readonly log: MessageLog;
  private readonly loader: StateLoader;
  /** Durable state: what reads see. */
  private readonly cache: StreamCache;
  private readonly streamCounts: StreamCounts;
  private readonly batches: BatchLifecycle;
  private readonly writes: GroupCommit<Batch>;
  private readonly touches: TtlTouches;
  private readonly checkpoints: Checkpoints | undefined;
  private readonly materializer: Materializer;
  /** Snapshot bytes in files beside a database on disk (snapshot-files.ts). */
  private readonly snapshotFiles: SnapshotFiles | undefined;
  private readonly chunkReads: SnapshotReads | undefined;
  private readonly reclaimer: Reclaimer<Batch>;
  private readonly tx: StreamTx;
  private readonly resources: ResourceStore;
  private readonly durableCounts: DurableCounts;
  private readonly buckets: SqliteBuckets;
  private readonly listing: Listing;
  readonly introspection: SqliteIntrospection;
  readonly subscriptions: SqliteSubscriptions;
  /** Snapshot files a crash left without a row, deleted once the store is open (close waits for it). */
  private readonly orphanFiles: Promise<void>;
  private readonly sweeper: ReturnType<typeof setInterval>;
  private readonly tiering: SegmentTiering | undefined;
  /** The segment files' start-up sweep (close waits for it). */
  private readonly segmentSweep: Promise<void>;
  /** Until both start-up sweeps (orphan snapshot files, segment files) are done. */
  private sweeping = true;
  private readonly fullDisk: FullDisk | undefined;
  private readonly integrityCheck: Worker | undefined;

  constructor(options: SqliteStoreOptions) {
    super();
    const { path } = options;
    const onDisk = path !== ":memory:";
    this.now = options.now ?? Date.now;
    this.clock = { nowMs: 0, limits: options.producerLimits ?? DEFAULT_PRODUCER_LIMITS };
    this.path = path;
    const log = options.log ?? stderrLog;
    this.busy = options.busy ?? (() => false);
    const reserve = onDisk ? new DiskReserve(path, options.reserveBytes ?? 0) : undefined;
    ({ db: this.db, lock: this.lock } = openDatabase(path, () => reserve && FullDisk.beforeOpen(reserve)));
    const { db, now, health, pending } = this;
    // Anything that fails from here on closes the database and lets go of the lock again.
    try {
      const st = (this.st = new Statements(db));
      this.damage = new StreamDamage(log);
      this.segmentFiles = onDisk ? new SegmentFiles(db, path) : undefined;
      const messages = (this.log = new MessageLog(db, st, now, options.materializeEveryMs, options.recentBytes, this.segmentFiles));
      const loader = (this.loader = new StateLoader(db));
      const cache = (this.cache = new StreamCache((key) => loader.load(key), options.cachedStreams));
      cache.pinWhile((key, state) => pending.has(key) || (state !== null && messages.isBehind(state.id)));
      const streamCounts = (this.streamCounts = new StreamCounts(db, st));

      const batches = (this.batches = new BatchLifecycle({ st, log: messages, streamCounts, health, pending, cache }));
      const writes = (this.writes = new GroupCommit<Batch>({
        begin: st.begin, commit: st.commit, rollback: st.rollback,
        open: () => batches.open(), finish: (b) => batches.finish(b), committed: (b) => batches.committed(b), durable: (b) => batches.durable(b),
        sync: onDisk && options.sync === "full" ? walSync(path) : undefined,
        syncFailed: options.onSyncFailure ?? exitOnSyncFailure,
        failed: (error) => health.failed(error),
        mayHoldLoop: (batch) => batch.small() && !this.busy(),
      }, options.commitObserver));
      const submit = <T>(run: (tx: Batch) => T) => writes.submit(run);
      this.subscriptions = new SqliteSubscriptions(db, submit);

      const touches = (this.touches = new TtlTouches({ cache, now, submit, writeTouch: (at, id) => st.updateTouch.run(at, id) }));
      cache.pinWhile((key, state) => touches.saving(key, state));
      cache.whenEvicted((_key, state) => state && touches.forget(state.id));
      const checkpoints = (this.checkpoints = onDisk ? startCheckpoints(options, reserve, health, writes) : undefined);
      if (checkpoints) batches.whenCommitted((batch) => checkpoints.committed(walBytesOf(batch.appendedBytes)));
      const materializer = (this.materializer = new Materializer(messages, submit, log));
      batches.whenCommitted(() => materializer.schedule());

      const attrs = new AttrsTable(db);
      this.snapshotFiles = onDisk ? new SnapshotFiles(path) : undefined;
      const blobs = new SnapshotBlobs(db, this.snapshotFiles);
      const pins = new Pins();
      // Snapshot chunks on disk are read on a thread of their own (snapshot-read-thread.ts).
      this.chunkReads = onDisk ? new SnapshotReads(options.snapshotReaderUrl ?? new URL("./snapshot-read-thread.ts", import.meta.url), path) : undefined;
      const reclaimer = (this.reclaimer = sqliteReclaimer({ db, log: messages, attrs, blobs, pins, submit }));
      const tx = (this.tx = new StreamTx({ st, log: messages, attrs, blobs, reclaimer, now, forget: (id) => touches.forget(id), damage: this.damage }));
      this.resources = new ResourceStore({ db, chunkReads: this.chunkReads, log: messages, attrs, blobs, pins, reclaimer, tx, submit });

      const durableCounts = (this.durableCounts = new DurableCounts({ counts: streamCounts, pending, cache, now, reap: (key) => this.reap(key) }));
      this.buckets = new SqliteBuckets({ db, st, quotas: options.quotas ?? NO_QUOTAS, now, streamCounts, durableCounts, live: (t, key) => tx.live(t, key) });
      const count = (bucket: string, prefix: string) => this.count(bucket, prefix);
      this.listing = new Listing(db, { rowMayDiffer: (bucket, name, id) => this.rowMayDiffer(bucket, name, id), peek: (key) => cache.peek(key), get: (key) => this.current(key), now, count });
      this.introspection = new SqliteIntrospection(db, { get: (key) => this.view(key), producerCount: (s) => this.remembered(s).length, now, count }, (s) => this.lineage(s));

      const replayedByteStreams: number[] = [];
      for (const { key, state } of messages.replay((id) => loader.loadById(id))) {
        cache.set(key, state);
        if (!isJsonType(state.contentType)) replayedByteStreams.push(state.id);
      }
      this.resources.reclaimLeftovers(mayHoldUnreachedRows(db, cache));
      this.orphanFiles = removeOrphanSnapshotFiles(blobs, this.snapshotFiles, log);
      this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 5_000);
      this.sweeper.unref();
      // Whatever start-up replayed is written out as soon as the writer is idle.
      materializer.schedule();
      const tiering = (this.tiering = this.segmentFiles && startTiering(options, db, this.segmentFiles, health, submit, reclaimer, messages));
      if (tiering) batches.whenDurable((batch) => { for (const [id, bytes] of batch.log.byteStreamBytes) tiering.appended(id, bytes); });
      this.segmentSweep = this.segmentFiles ? sweepSegmentFiles(db, this.segmentFiles, tiering, replayedByteStreams, log) : Promise.resolve();
      void Promise.allSettled([this.orphanFiles, this.segmentSweep]).then(() => (this.sweeping = false));
      this.fullDisk = reserve && watchSpace({ db, dbPath: path, reserve, health, log, submit, probe: () => this.probeRow() });
      this.integrityCheck = onDisk && options.integrityCheckUrl !== false ? checkIntegrity(options.integrityCheckUrl ?? new URL("./integrity-check.ts", import.meta.url), path, health, log) : undefined;
    } catch (error) {
      void this.checkpoints?.close();
      void this.chunkReads?.close();
      db.close();
      this.lock?.release();
      throw error;
    }
  }

  /** What the single-process lock is (database-lock.ts), for the start-up log; none in memory. */
  get lockHeld(): string | undefined {
    return this.lock?.held;
  }

  onChange(listener: (changes: ToldChange[]) => void): void {
    this.batches.whenChanged(listener);
  }

  // ---- reads: durable state only ---------------------------------------------------------

  // Every read answers from the process (the cache, or a synchronous query between
  // transactions); the promise is the interface's, for engines with a round-trip, and costs one
  // per request, never one per row.
  async get(key: string): Promise<StreamState | undefined> {
    return this.current(key);
  }

  private current(key: string): StreamState | undefined {
    const state = this.cache.get(key);
    // Never inside a transaction: reads run between them (group-commit.ts runs each whole).
    this.cache.trim();
    return this.unlessExpired(key, state);
  }

  /** Like `get`, but a state not cached is read without being kept: for walks over many streams. */
  private view(key: string): StreamState | undefined {
    const cached = this.cache.peek(key);
    return this.unlessExpired(key, cached === undefined ? this.loader.load(key) : (cached ?? undefined));
  }

  /** Whether a stream's row may differ from what readers see: behind its log, a write not yet durable, a touch not yet written. */
  private rowMayDiffer(bucket: string, name: string, id: number): boolean {
    if (this.log.isBehind(id)) return true;
    if (this.pending.size === 0 && !this.touches.holdsAny) return false;
    const key = streamKey(bucket, name);
    return this.pending.has(key) || this.touches.holds(key);
  }

  private unlessExpired(key: string, state: StreamState | undefined): StreamState | undefined {
    if (state && !state.softDeleted && isExpired(state, this.now())) {
      this.reap(key);
      return undefined;
    }
    return state;
  }

  async readRange(state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice> {
    if (start >= state.tail) return { chunks: [], end: start };
    const end = Math.min(state.tail, start + limitBytes);
    // Array mode always carries at least one whole message, however large (spec §4.2).
    let rows;
    try {
      rows = this.log.read(this.lineage(state), start, wholeMessages ? Math.max(end, start + 1) : end);
    } catch (error) {
      throw this.damage.readFailed(state, error);
    }
    if (wholeMessages && isJsonType(state.contentType)) return jsonMessages(rows, start, end);
    return sliceRows(rows, start, end, wholeMessages);
  }

  /** A byte stream's bytes from `start` that one segment file holds, sent from the file (segment-spans.ts). */
  fileSpan(state: StreamState, start: number, limitBytes: number): FileSpan | null {
    return this.segmentFiles ? fileSpan(this.segmentFiles, this.lineage(state), state, start, limitBytes, this.busy()) : null;
  }

  async isMessageStart(state: StreamState, offset: number): Promise<boolean> {
    try {
      return offset === state.tail || this.log.isMessageStart(this.lineage(state), offset, isJsonType(state.contentType));
    } catch (error) {
      throw this.damage.readFailed(state, error);
    }
  }

  /** Where a durable state's bytes are read from: its own rows, and its sources' below its fork offset. */
  private lineage(state: StreamState): Segment[] {
    return lineageOf(state, (key) => this.cache.get(key), this.log.copied);
  }

  get producerLimits(): ProducerLimits {
    return this.clock.limits;
  }

  async producers(state: StreamState): Promise<[string, ProducerState][]> {
    return this.remembered(state);
  }

  private remembered(state: StreamState): [string, ProducerState][] {
    const clock = this.producerClock();
    return [...state.producers].filter(([, entry]) => isRemembered(entry, clock));
  }

  private producerClock(): ProducerClock {
    this.clock.nowMs = this.now();
    return this.clock;
  }

  async renewTtl(key: string): Promise<void> {
    this.touches.renew(key);
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

  transact<T>(plan: WritePlan<T, SnapshotUpload>): Promise<T> {
    return this.clientWrite((tx) => {
      // The quota first: counting reclaims the bucket's expired streams (protocol/writes.ts).
      const refusal = plan.counts?.creates ? this.buckets.quotaRefusal(plan.counts.bucket, tx) : null;
      const views = plan.reads.map((read) => this.tx.view(tx, read));
      const decision = plan.decide(views, this.producerClock(), refusal);
      const applied = new Map<string, StreamState | undefined>();
      for (const effect of decision.effects) this.tx.apply(tx, effect, applied);
      return decision.result(applied);
    }, plan.grows);
  }

  // ---- attributes and snapshots (resource-store.ts) ----------------------------------------

  async attrs(state: StreamState): Promise<string | null> {
    try {
      return this.resources.attrs(state);
    } catch (error) {
      throw this.damage.readFailed(state, error);
    }
  }

  stageSnapshot(): SnapshotUpload {
    this.health.admitGrowth();
    return this.resources.stageSnapshot();
  }

  discardSnapshot(upload: SnapshotUpload): Promise<void> {
    return this.resources.discardSnapshot(upload);
  }

  async openSnapshot(meta: SnapshotMeta): Promise<SnapshotReader> {
    return this.resources.openSnapshot(meta);
  }

  // ---- buckets and listings --------------------------------------------------------------------

  putBucket(bucket: string): Promise<"created" | "exists" | ProtocolError> {
    return this.clientWrite((tx) => this.buckets.put(tx, bucket));
  }

  async hasBucket(bucket: string): Promise<boolean> {
    return this.buckets.has(bucket);
  }

  async getBucket(bucket: string): Promise<BucketInfo | undefined> {
    return this.buckets.get(bucket);
  }

  deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty"> {
    return this.clientWrite((tx) => this.buckets.remove(tx, bucket), false);
  }

  async listBuckets(query: ListQuery): Promise<Page<BucketSummary>> {
    return this.listing.buckets(query, this.streamCounts.bucketsWith(query.prefix));
  }

  async listStreams(bucket: string, query: ListQuery): Promise<Page<StreamSummary>> {
    return this.listing.streams(bucket, query);
  }

  async counts(): Promise<{ streams: number; buckets: number }> {
    return this.durableCounts.totals();
  }

  /** Live streams in the bucket whose ID starts with `prefix`, as readers see them. */
  private count(bucket: string, prefix: string): Count {
    return this.durableCounts.inBucket(bucket, prefix);
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
      appendedBytes: this.batches.appendedBytes,
      appendedMessages: this.batches.appendedMessages,
      damagedReads: this.damage.errors,
      damagedStreams: this.damage.count,
      snapshotFileBytes: this.snapshotFiles?.bytes() ?? 0,
      segmentFileBytes: this.segmentFiles?.bytes() ?? 0,
      ...databaseFileSizes(this.db, this.path),
      backgroundTasks: this.reclaimer.pending + (this.tiering?.pending ?? 0) + (this.sweeping ? 1 : 0) + (this.log.deferred ? 1 : 0),
    };
  }

  /** Resolves once the reclaimer and the segment files' mover have nothing queued (pinned blobs aside) and the files a crash left are gone. */
  async reclaimed(): Promise<void> {
    await this.orphanFiles;
    await this.segmentSweep;
    await this.tiering?.settled();
    return this.reclaimer.settled();
  }

  async close(): Promise<void> {
    this.health.closing();
    this.fullDisk?.stop();
    void this.integrityCheck?.terminate();
    clearInterval(this.sweeper);
    this.materializer.stop();
    this.reclaimer.stop();
    await this.tiering?.stop();
    await this.orphanFiles;
    await this.segmentSweep;
    await this.writes.drain();
    await this.materializer.flush();
    await this.checkpoints?.close();
    await this.chunkReads?.close();
    // close(true): the prepared statements are finalized and the connection released now, so it
    // is the last one and SQLite checkpoints the WAL into the database and removes it. Plain
    // close() leaves the connection open until the garbage collector finalizes every statement.
    this.db.close(true);
    this.segmentFiles?.close();
    this.lock?.release();
  }

  // ---- inside a transaction ------------------------------------------------------------------

  private reap(key: string): void {
    if (this.pendingReaps.has(key)) return;
    this.pendingReaps.add(key);
    this.writes
      .submit((tx) => this.tx.live(tx, key))
      .catch(() => undefined)
      .finally(() => this.pendingReaps.delete(key));
  }

  /** Reclaims streams found expired through their stored deadline (`get` reaps them). */
  private sweep(): void {
    void this.snapshotFiles?.measure();
    for (const key of this.streamCounts.mayHaveExpired(this.now())) if (!this.pending.has(key)) this.current(key);
  }
}
