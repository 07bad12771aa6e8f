// The SQLite-backed Store. The database is the truth; a stream's metadata and producer state are
// loaded from it on first touch into a bounded cache (stream-cache.ts), so start-up reads only
// what the log says a crash left behind. Writes go through group commit (one transaction and one
// sync for every write in an event-loop turn), and the cache changes only once they are durable.

import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { isJsonType } from "../../protocol/content-type";
import type { ProtocolError } from "../../protocol/errors";
import { isExpired } from "../../protocol/lifetime";
import { DEFAULT_PRODUCER_LIMITS, isRemembered, type ProducerClock, type ProducerLimits, type ProducerState } from "../../protocol/producer";
import { NO_QUOTAS, type Quotas } from "../../protocol/quota";
import { streamKey, type SnapshotMeta, type StreamState } from "../../protocol/state";
import type { WritePlan } from "../../protocol/writes";
import { AttrsTable } from "./attrs-table";
import { Batch } from "./batch";
import { SqliteBuckets } from "./buckets";
import type { DatabaseLock } from "./database-lock";
import type { CheckpointerMessage } from "./checkpointer";
import { Checkpoints } from "./checkpoints";
import { SnapshotReads } from "./snapshot-reads";
import { DiskReserve, freeBytes, RESERVE_SUFFIX } from "./disk-reserve";
import { FullDisk, watchSpace } from "./full-disk";
import type { CommitObserver } from "../commit-observer";
import { GroupCommit } from "./group-commit";
import { SqliteIntrospection } from "./introspection";
import { Listing } from "./listing";
import { checkIntegrity } from "./integrity";
import { jsonMessages } from "./json-rows";
import { lineageOf, segmentAt, type Segment } from "../lineage";
import { MessageLog } from "./message-log";
import { openDatabase, WAL_SIZE_LIMIT } from "./open-database";
import { Pins } from "./pins";
import { ResourceStore } from "./resource-store";
import { Statements } from "./rows";
import { SnapshotBlobs } from "./snapshot-blobs";
import { SnapshotFiles } from "./snapshot-files";
import { SegmentFiles } from "./segment-files";
import { SegmentTiering } from "./segment-tiering";
import { stderrLog, type StoreLog } from "../store-log";
import { TtlTouches } from "./ttl-touches";
import type { BucketInfo, BucketSummary, FileSpan, ListQuery, Page, ReadSlice, SnapshotReader, SnapshotUpload, Store, StoreStats, StreamChange, StreamSummary } from "../store";
import { StreamStore } from "../stream-store";
import { DurableCounts } from "./durable-counts";
import { StateLoader } from "./state-loader";
import { StreamCache } from "./stream-cache";
import type { Count } from "../prefix-count";
import { StreamCounts } from "./stream-counts";
import { StreamDamage } from "./stream-damage";
import { StreamTx } from "./stream-tx";
import { walBytesOf, walLagOf } from "./wal-lag";
import { exitOnSyncFailure, walSync } from "./wal-sync";
import { failureOf, PROBE_BYTES, WriteHealth, type WriteState } from "../write-health";

export type SyncMode = "full" | "normal";

/** The least a response sent from a segment file carries, unless it reaches the read's end (or half the file, if less). */
const MIN_FILE_SPAN_BYTES = 1024 * 1024;
/**
 * The most a response sent from a segment file carries while other requests are in progress.
 * Bun sends a file with sendfile calls on the event loop, each as much as the socket takes at
 * once (4-8 MiB on loopback): under the bench's scale load, 8 MiB responses made a HEAD's p99
 * 19-20.5 ms at 10k streams, 2 MiB ones 12 ms (one run each).
 */
const BUSY_FILE_SPAN_BYTES = 2 * 1024 * 1024;

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
  /** The snapshot read thread's entry point, given as `checkpointerUrl` is. */
  snapshotReaderUrl?: URL;
  /** How often the checkpoint thread copies the WAL into the database file (checkpoints.ts). */
  checkpointEveryMs?: number;
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
  /** How many stream states are kept in memory (stream-cache.ts); DEFAULT_CACHED_STREAMS if not given. */
  cachedStreams?: number;
  /** How many bytes of a byte stream's messages go to one segment file (segment-tiering.ts); SEGMENT_BYTES if not given, none moved if 0. */
  segmentBytes?: number;
}


export class SqliteStore extends StreamStore implements Store {
  private readonly db: Database;
  private readonly st: Statements;
  private readonly log: MessageLog;
  /** Durable state: what reads see. */
  private readonly cache: StreamCache;
  private readonly loader: StateLoader;
  private readonly streamCounts: StreamCounts;
  private readonly durableCounts: DurableCounts;
  private readonly listing: Listing;
  private readonly buckets: SqliteBuckets;
  private readonly touches: TtlTouches;
  /** Committed, not yet durable: what the next writes are decided against. */
  private readonly pending = new Map<string, StreamState | null>();
  private readonly writes: GroupCommit<Batch>;
  private readonly listeners: ((changes: StreamChange[]) => void)[] = [];
  private readonly now: () => number;
  private readonly pendingReaps = new Set<string>();
  private readonly tx: StreamTx;
  private readonly resources: ResourceStore;
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private readonly checkpoints: Checkpoints | undefined;
  private readonly chunkReads: SnapshotReads | undefined;
  /** Held for the store's whole life; dropping the reference would let GC release the lock. */
  private readonly lock: DatabaseLock | undefined;
  /** What the single-process lock is (database-lock.ts), for the start-up log; none in memory. */
  get lockHeld(): string | undefined {
    return this.lock?.held;
  }
  private materializeTimer: ReturnType<typeof setTimeout> | undefined;
  /** Reused by every decision (its time set first), so an append allocates no clock of its own. */
  private readonly clock: ProducerClock;
  readonly introspection: SqliteIntrospection;
  private readonly path: string;
  private readonly health: WriteHealth;
  private readonly fullDisk: FullDisk | undefined;
  private readonly damage: StreamDamage;
  private integrityCheck: Worker | undefined;
  /** Snapshot files a crash left without a row, deleted once the store is open (close waits for it). */
  private orphanFiles: Promise<void> = Promise.resolve();
  /** Snapshot bytes in files beside a database on disk (snapshot-files.ts). */
  private readonly snapshotFiles: SnapshotFiles | undefined;
  /** Sealed runs of byte streams' messages in files beside a database on disk (segment-files.ts). */
  private readonly segmentFiles: SegmentFiles | undefined;
  private readonly tiering: SegmentTiering | undefined;
  /** The segment files' start-up sweep (close waits for it). */
  private segmentSweep: Promise<void> = Promise.resolve();
  private readonly report: StoreLog;
  /** Whether requests besides live reads are in progress (the server says; never in tests). */
  private readonly busy: () => boolean;
  private appendedBytes = 0;
  private appendedMessages = 0;

  constructor(options: SqliteStoreOptions) {
    super();
    this.now = options.now ?? Date.now;
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
      const busy = (this.busy = options.busy ?? (() => false));
      if (onDisk) {
        const report = options.onCheckpointMessage ?? ((m: CheckpointerMessage) => console.error(`ursa: ${m.message}${m.error ? `: ${m.error}` : ""}`));
        const url = options.checkpointerUrl ?? new URL("./checkpointer.ts", import.meta.url);
        this.checkpoints = new Checkpoints(url, options.path, WAL_SIZE_LIMIT, (until) => this.writes.hold(until), (m) => {
          report(m);
          // A checkpoint that cannot grow the database file while writes still fit in the WAL's
          // old space would let the WAL fill with pages that need room the disk lacks: full now.
          if (m.code === "SQLITE_FULL") this.health.becomeFull();
        }, options.checkpointEveryMs, reserve && walLagOf(reserve, options.path));
      }
      this.st = new Statements(this.db);
      this.segmentFiles = onDisk ? new SegmentFiles(this.db, options.path) : undefined;
      this.log = new MessageLog(this.db, this.st, this.now, options.materializeEveryMs, options.recentBytes, this.segmentFiles);
      this.loader = new StateLoader(this.db);
      this.cache = new StreamCache(
        {
          load: (key) => this.loader.load(key),
          pinned: (key, state) => this.pending.has(key) || (state !== null && this.log.isBehind(state.id)) || this.touches.saving(key, state),
          evicted: (_key, state) => state && this.touches.forget(state.id),
        },
        options.cachedStreams,
      );
      const updateTouch = this.st.updateTouch;
      this.touches = new TtlTouches({ cache: this.cache, now: this.now, submit: (run) => this.writes.submit(run), writeTouch: (at, id) => updateTouch.run(at, id) });
      this.streamCounts = new StreamCounts(this.db, this.st);
      this.durableCounts = new DurableCounts({ counts: this.streamCounts, pending: this.pending, cache: this.cache, now: this.now, reap: (key) => this.reap(key) });
      this.buckets = new SqliteBuckets({ db: this.db, st: this.st, quotas: options.quotas ?? NO_QUOTAS, now: this.now, streamCounts: this.streamCounts, durableCounts: this.durableCounts, live: (tx, key) => this.tx.live(tx, key) });
      this.listing = new Listing(this.db, {
        rowMayDiffer: (bucket, name, id) => this.log.isBehind(id) || ((this.pending.size > 0 || this.touches.holdsAny) && this.rowMayDiffer(streamKey(bucket, name))),
        peek: (key) => this.cache.peek(key), get: (key) => this.current(key), now: this.now, count: (bucket, prefix) => this.count(bucket, prefix),
      });
      // Snapshot chunks on disk are read on a thread of their own (snapshot-read-thread.ts).
      this.chunkReads = onDisk ? new SnapshotReads(options.snapshotReaderUrl ?? new URL("./snapshot-read-thread.ts", import.meta.url), options.path) : undefined;
      const attrs = new AttrsTable(this.db);
      this.snapshotFiles = onDisk ? new SnapshotFiles(options.path) : undefined;
      const blobs = new SnapshotBlobs(this.db, this.snapshotFiles);
      const pins = new Pins();
      const forksOf = this.db.prepare<{ bucket: string; name: string }, [number]>("SELECT bucket, name FROM streams WHERE fork_source_id = ?");
      this.tx = new StreamTx({
        st: this.st,
        log: this.log,
        attrs,
        blobs,
        reclaimer: () => this.resources.reclaimer,
        now: this.now,
        forget: (id) => this.touches.forget(id),
        damage: this.damage,
        forkKeys: (id) => forksOf.all(id).map((r) => streamKey(r.bucket, r.name)),
      });
      const replayedByteStreams: number[] = [];
      for (const { key, state } of this.log.replay((id) => this.loader.loadById(id))) {
        this.cache.set(key, state);
        if (!isJsonType(state.contentType)) replayedByteStreams.push(state.id);
      }
      this.introspection = new SqliteIntrospection(
        this.db,
        { get: (key) => this.view(key), producerCount: (s) => this.remembered(s).length, now: this.now, count: (bucket, prefix) => this.count(bucket, prefix) },
        (s) => this.lineage(s),
      );
      this.writes = new GroupCommit<Batch>({
        begin: this.st.begin,
        commit: this.st.commit,
        rollback: this.st.rollback,
        open: () => new Batch(this.pending, this.cache),
        finish: (batch) => {
          for (const [key, full] of batch.dirty) {
            const state = batch.overlay.get(key);
            if (!state) continue;
            if (full) this.st.update(state);
            else this.st.updateHot(state);
          }
          this.log.flush(batch);
          if (this.log.due(batch)) this.log.materialize(batch);
          this.streamCounts.write(batch);
        },
        committed: (batch) => {
          // A client's write (or the probe) that commits shows the disk takes writes again; the
          // store's own upkeep may need no new space, so it shows nothing.
          if (batch.clientWrite) this.health.succeeded();
          for (const [key, state] of batch.overlay) this.pending.set(key, state);
          this.log.committed(batch);
          this.checkpoints?.committed(walBytesOf(batch.appendedBytes));
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
        chunkReads: this.chunkReads,
        log: this.log,
        attrs,
        blobs,
        pins,
        tx: this.tx,
        submit: (run) => this.writes.submit(run),
      });
      this.resources.reclaimLeftovers(this.mayHoldUnreachedRows());
      this.orphanFiles = blobs.removeOrphanFiles().then(
        (n) => {
          if (n > 0) log("info", "deleted snapshot files that no snapshot refers to (left by a crash)", { files: n });
        },
        (error: unknown) => log("warn", "could not delete snapshot files left by a crash (the next start tries again)", { error: (error as Error).message }),
      );
      // Measured once the sweep is done, so the first scrape already counts the files.
      void this.orphanFiles.then(() => this.snapshotFiles?.measure());
      this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 5_000);
      this.sweeper.unref();
      // Whatever start-up replayed is written out as soon as the writer is idle.
      this.scheduleMaterialize();
      if (this.segmentFiles) {
        const files = this.segmentFiles;
        // A database without incremental vacuum (made before schema 4) cannot give the pages of
        // moved messages back: its file would keep their size beside the files. It keeps them in rows.
        const incremental = this.db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()!.auto_vacuum === 2;
        const tiering = options.segmentBytes === 0 || !incremental ? undefined : (this.tiering = new SegmentTiering({
          db: this.db,
          files,
          submit: (run) => this.writes.submit(run),
          writable: () => this.health.state === "ok",
          freeBytes: () => freeBytes(options.path),
          freed: (bytes) => this.resources.reclaimer.freedElsewhere(bytes),
          behind: (id) => this.log.isBehind(id),
          segmentBytes: options.segmentBytes,
        }));
        this.segmentSweep = files.sweep().then(
          ({ orphans, damaged }) => {
            if (orphans > 0) log("info", "deleted segment files that no message refers to (left by a crash)", { files: orphans });
            for (const path of damaged) log("error", "a segment file is missing or shorter than its messages: reads of them answer 500 STORAGE_CORRUPT; restore it from a backup (docs/operations.md)", { file: path });
            if (!tiering) return;
            for (const id of replayedByteStreams) tiering.lookThrough(id);
            for (const id of this.largeByteStreams(tiering.segmentBytes)) tiering.lookThrough(id);
          },
          (error: unknown) => log("warn", "could not sweep the segment files (the next start tries again)", { error: (error as Error).message }),
        );
      }
      this.fullDisk = reserve && watchSpace({ db: this.db, dbPath: options.path, reserve, health: this.health, log, submit: (run) => this.writes.submit(run), probe: () => this.probeRow() });
      if (onDisk && options.integrityCheckUrl !== false) this.integrityCheck = checkIntegrity(options.integrityCheckUrl ?? new URL("./integrity-check.ts", import.meta.url), options.path, this.health, log);
    } catch (error) {
      void this.checkpoints?.close();
      void this.chunkReads?.close();
      this.db.close();
      this.lock?.release();
      throw error;
    }
  }

  /**
   * The streams whose rows a crash may have left unreclaimed (reclaimLeftovers): those with a
   * retained floor, and soft-deleted sources, which keep only what their forks reach.
   */
  private *mayHoldUnreachedRows(): Generator<[string, StreamState]> {
    for (const where of ["retained_offset > 0", "soft_deleted = 1 AND retained_offset = 0"]) {
      for (const { bucket, name } of this.db.query<{ bucket: string; name: string }, []>(`SELECT bucket, name FROM streams WHERE ${where}`).iterate()) {
        const key = streamKey(bucket, name);
        const state = this.cache.get(key);
        if (state) yield [key, state];
      }
    }
  }

  /**
   * Byte streams whose row says they are long enough to hold a run that could move to a segment
   * file, found through the tail index bucket by bucket: after a start, the appends that would
   * have said so are gone. (Streams whose row is behind their log rows are looked through too.)
   */
  private largeByteStreams(atLeast: number): number[] {
    const big = this.db.prepare<{ id: number; content_type: string }, [string, number]>("SELECT id, content_type FROM streams WHERE bucket = ? AND tail >= ?");
    const out: number[] = [];
    for (const { bucket_id } of this.db.query<{ bucket_id: string }, []>("SELECT bucket_id FROM buckets").iterate()) {
      for (const row of big.iterate(bucket_id, atLeast)) if (!isJsonType(row.content_type)) out.push(row.id);
    }
    return out;
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
    this.streamCounts.durable(batch);
    for (const [key, state] of batch.overlay) {
      this.cache.set(key, state);
      if (this.pending.get(key) === state) this.pending.delete(key);
    }
    this.cache.trim();
    for (const [id, bytes] of batch.log.byteStreamBytes) this.tiering?.appended(id, bytes);
    if (batch.changes.length > 0) for (const l of this.listeners) l(batch.changes);
    for (const run of batch.onDurable) run();
  }

  onChange(listener: (changes: StreamChange[]) => void): void {
    this.listeners.push(listener);
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

  /** The pinned streams whose row is ahead of (a write not yet durable) or behind (a touch) readers. */
  private rowMayDiffer(key: string): boolean {
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

  /**
   * A byte stream's bytes from `start` that one segment file holds, as a body the server sends
   * from the file itself (sendfile), or null where they are in rows. A file's last few bytes
   * before more of the stream are read from rows with what follows, as one response: a response
   * of its own for them would cost a round trip and save no copy worth it. While other requests
   * are in progress a response carries at most BUSY_FILE_SPAN_BYTES.
   */
  fileSpan(state: StreamState, start: number, limitBytes: number): FileSpan | null {
    const files = this.segmentFiles;
    if (!files || start >= state.tail || isJsonType(state.contentType)) return null;
    const seg = segmentAt(this.lineage(state), start);
    const range = seg && files.at(seg.id, start);
    if (!seg || !range?.sendable) return null;
    const whole = Math.min(state.tail, start + (this.busy() ? Math.min(limitBytes, BUSY_FILE_SPAN_BYTES) : limitBytes));
    const end = Math.min(range.hi, seg.hi, whole);
    if (end < whole && end - start < Math.min(MIN_FILE_SPAN_BYTES, (range.hi - range.lo) / 2)) return null;
    range.handedAt = performance.now();
    return { body: Bun.file(files.path(seg.id, range.lo)).slice(start - range.lo, end - range.lo), end };
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
      appendedBytes: this.appendedBytes,
      appendedMessages: this.appendedMessages,
      damagedReads: this.damage.errors,
      damagedStreams: this.damage.count,
      snapshotFileBytes: this.snapshotFiles?.bytes() ?? 0,
      segmentFileBytes: this.segmentFiles?.bytes() ?? 0,
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

  /** Resolves once the reclaimer and the segment files' mover have nothing queued (pinned blobs aside) and the files a crash left are gone. */
  async reclaimed(): Promise<void> {
    await this.orphanFiles;
    await this.segmentSweep;
    await this.tiering?.settled();
    return this.resources.reclaimer.settled();
  }

  async close(): Promise<void> {
    this.health.closing();
    this.fullDisk?.stop();
    void this.integrityCheck?.terminate();
    clearInterval(this.sweeper);
    clearTimeout(this.materializeTimer);
    this.resources.reclaimer.stop();
    await this.tiering?.stop();
    await this.orphanFiles;
    await this.segmentSweep;
    await this.writes.drain();
    // The deferred index rows. A full or failing disk may refuse them; the log rows they index are
    // durable, and the next start replays them, so the stop goes on.
    if (this.log.deferred) {
      await this.writes.submit((tx) => this.log.materialize(tx)).catch((error: unknown) => {
        if (failureOf(error) === null) throw error;
        this.report("warn", "stopping without writing the last index rows (the next start replays them)", { error: (error as Error).message });
      });
    }
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
