// The PostgreSQL-backed Store: several ursa processes on one database. The database is the only
// truth; nothing is decided against a cache. An append is decided on the committed row and
// applied only if the row has not changed since (conditional-apply.ts, conditional-commit.ts);
// every other write locks the rows it decides on inside its transaction and lets server/protocol
// decide there (group-commit.ts). Concurrent writes of this instance share one transaction, and a
// write is acknowledged only once COMMIT has returned. Other instances' commits reach this one's
// live readers as NOTIFY wake-ups (notify.ts). With several hosts in the URL, the store follows
// the primary (primary.ts).

import { SQL } from "bun";
import { PgSubscriptions } from "./subscriptions-table";
import type { ProtocolError } from "../../protocol/errors";
import { isExpired } from "../../protocol/lifetime";
import { DEFAULT_PRODUCER_LIMITS, isRemembered, type ProducerClock, type ProducerLimits, type ProducerState } from "../../protocol/producer";
import { NO_QUOTAS, quotaRefusal, type Quotas } from "../../protocol/quota";
import { splitKey, type SnapshotMeta, type StreamState } from "../../protocol/state";
import type { WritePlan } from "../../protocol/writes";
import { changedStream, type ListQuery, type ReadSlice, type SnapshotReader, type SnapshotUpload, type Store, type StoreStats, type StreamChange, type ToldChange } from "../store";
import { StreamStore } from "../stream-store";
import type { CommitObserver } from "../commit-observer";
import type { WriteState } from "../write-health";
import { attempt, isConditional, type ConditionalContext } from "./conditional-apply";
import { ConditionalCommit } from "./conditional-commit";
import { DecidedRows } from "./decided-rows";
import { Connection } from "./connection";
import { hostUrls } from "./hosts";
import { Primary } from "./primary";
import { PgGroupCommit, type Locks, type TxSql, type WriteEffects } from "./group-commit";
import { PgIntrospection } from "./introspection";
import { isMessageStart, readRange } from "./lineage";
import { Listings } from "./listings";
import { Notifier } from "./notify";
import { reclaimUp } from "./reclaim";
import { producerOf, STREAM_COLUMNS, stateOf, type ProducerRow, type StreamRow } from "./rows";
import { migrate } from "./schema";
import { PlannerStatistics } from "./planner-statistics";
import { DatabaseSizes } from "./sizes";
import { PgUpload, SnapshotBlobs } from "./snapshots";
import { StreamWrites } from "./stream-writes";

export interface PgStoreOptions {
  url: string;
  now?: () => number;
  producerLimits?: ProducerLimits;
  quotas?: Quotas;
  /** Connections in the pool (the listener has its own). */
  poolSize?: number;
  /** How often expired streams are reclaimed in the background. */
  sweepIntervalMs?: number;
  /** Told each transaction's size and time. */
  commitObserver?: CommitObserver;
  /** How long a snapshot reader's lease outlives its instance's last renewal (snapshots.ts). */
  snapshotLeaseMs?: number;
}

export class PgStore extends StreamStore implements Store {
  private readonly sql: SQL;
  private readonly primary: Primary;
  private readonly now: () => number;
  private readonly clock: ProducerClock;
  private readonly quotas: Quotas;
  private readonly writes: PgGroupCommit;
  private readonly conditional: ConditionalCommit;
  private readonly conditionalContext: ConditionalContext;
  /** Rows this instance's appends committed, to decide the next append of the stream on (decided-rows.ts). */
  private readonly decided = new DecidedRows();
  /** Per stream key, the last write this instance took and has not finished. */
  private readonly turns = new Map<string, Turn>();
  private readonly listeners: ((changes: ToldChange[]) => void)[] = [];
  private readonly missedListeners: (() => void)[] = [];
  private readonly blobs: SnapshotBlobs;
  private readonly notifier: Notifier;
  private readonly listings: Listings;
  private readonly sizes: DatabaseSizes;
  private readonly statistics: PlannerStatistics;
  readonly connection: Connection;
  readonly introspection: PgIntrospection;
  readonly subscriptions: PgSubscriptions;
  /** Work started behind commits (reclaiming), awaited by settle(). */
  private readonly background = new Set<Promise<void>>();
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private appendedBytes = 0;
  private appendedMessages = 0;
  private closing = false;
  /** Whether the notifier has started (a host found at open needs no new LISTEN). */
  private listening = false;

  private constructor(options: PgStoreOptions) {
    super();
    this.now = options.now ?? Date.now;
    this.clock = { nowMs: 0, limits: options.producerLimits ?? DEFAULT_PRODUCER_LIMITS };
    this.quotas = options.quotas ?? NO_QUOTAS;
    this.primary = new Primary(hostUrls(options.url), options.poolSize ?? 10, () => this.moved());
    this.sql = this.primary.sql;
    this.connection = new Connection(() => this.primary.follow());
    this.sizes = new DatabaseSizes(this.sql);
    this.statistics = new PlannerStatistics(this.sql);
    this.blobs = new SnapshotBlobs(this.sql, (work) => this.track(work), options.snapshotLeaseMs);
    this.listings = new Listings(this.sql, this.now, (key) => this.reap(key));
    this.introspection = new PgIntrospection(this.sql, this.listings, this.now, this.clock.limits, (key) => this.get(key));
    this.notifier = new Notifier(
      this.sql,
      (id, key) => this.remoteChange(id, key),
      () => {
        // Notifications may have been lost: no row kept here can be trusted to be the newest.
        this.decided.clear();
        this.subscriptions.changed();
        for (const l of this.missedListeners) l();
      },
      () => this.subscriptions.changed(),
    );
    this.subscriptions = new PgSubscriptions(this.sql, this.notifier);
    this.writes = new PgGroupCommit(this.sql, {
      beforeCommit: (tx, fx) => this.notifier.send(tx, fx.flatMap((f) => f.changes)),
      committed: (fx, mark) => {
        // A locked write moved these rows past any kept for a conditional append.
        for (const f of fx) for (const change of f.changes) this.decided.forget(changedStream(change).key);
        this.committed(fx, mark);
      },
      failed: (error) => this.connection.failed(error),
    }, options.commitObserver);
    this.conditional = new ConditionalCommit(this.sql, {
      wakeUps: (streams) => this.notifier.wakeUps(streams),
      committed: (fx, mark) => this.committed(fx, mark),
      failed: (error) => this.connection.failed(error),
    }, options.commitObserver);
    this.conditionalContext = {
      sql: this.sql,
      commit: this.conditional,
      now: this.now,
      clock: () => this.producerClock(),
      decided: this.decided,
    };
  }

  /** Connects, migrates the schema (refusing a newer one) and starts listening. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const store = new PgStore(options);
    try {
      await store.primary.find();
      await migrate(store.sql);
      await store.notifier.start();
      store.listening = true;
      await store.blobs.collectAbandoned(store.now());
      await store.sizes.measure();
    } catch (error) {
      await store.primary.close();
      throw error;
    }
    store.sweeper = setInterval(() => store.track(store.sweep()), options.sweepIntervalMs ?? 5_000);
    store.sweeper.unref();
    return store;
  }

  /**
   * The store now queries another host, the new primary (primary.ts): LISTEN there, and have
   * every live reader read again, since wake-ups sent meanwhile went nowhere.
   */
  private moved(): void {
    if (!this.listening) return;
    this.notifier.start().catch((error: unknown) => this.connection.failed(error));
  }

  private committed(fx: WriteEffects[], mark: number | null): void {
    this.connection.succeeded();
    // Before the changes are told: a wake matched against the subscriptions waits for this mark.
    this.notifier.committed(mark);
    const changes: StreamChange[] = [];
    for (const f of fx) {
      this.appendedBytes += f.appendedBytes;
      this.appendedMessages += f.appendedMessages;
      for (const c of f.changes) changes.push(c);
    }
    if (changes.length > 0) this.tell(changes);
  }

  private tell(changes: ToldChange[]): void {
    for (const l of this.listeners) l(changes);
  }

  /**
   * Another instance committed a change of stream `id` at `key`. Nothing is read here: the live
   * readers of the stream on this instance read it again, one read for all of them (live/shared-
   * reads.ts), and a stream no one here reads costs nothing. A deletion or a recreation is found
   * by that read (protocol/read.ts, decideWake).
   */
  private remoteChange(id: number, key: string): void {
    this.decided.forget(key);
    this.tell([{ kind: "touched", id, key }]);
  }

  private track(work: Promise<void>): void {
    const p = work.catch((error: unknown) => this.connection.failed(error)).finally(() => this.background.delete(p));
    this.background.add(p);
  }

  private submit<T>(locks: Locks, run: (w: StreamWrites) => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new Error("the store is closed"));
    return this.writes.submit(locks, (tx, fx) => run(this.writer(tx, fx)));
  }

  private writer(tx: TxSql, fx: WriteEffects): StreamWrites {
    return new StreamWrites(tx, fx, {
      now: this.now,
      clock: () => this.producerClock(),
      reclaim: (id) => this.track(reclaimUp(this.sql, id)),
      collectBlob: (id) => this.track(this.blobs.collect(id)),
    });
  }

  private producerClock(): ProducerClock {
    this.clock.nowMs = this.now();
    return this.clock;
  }

  // ---- reads ------------------------------------------------------------------------------------

  /**
   * The stream as committed, read now. Its `producers` map is empty: the table can hold thousands,
   * and only decisions need them, which load them under the stream's lock (`producers` lists them).
   */
  async get(key: string): Promise<StreamState | undefined> {
    const { bucket, name } = splitKey(key);
    const rows: StreamRow[] = await this.sql.unsafe(`SELECT ${STREAM_COLUMNS} FROM streams WHERE bucket = $1 AND name = $2`, [bucket, name]);
    const state = rows[0] && stateOf(rows[0]);
    if (state && !state.softDeleted && isExpired(state, this.now())) {
      this.reap(key);
      return undefined;
    }
    return state;
  }

  readRange(state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice> {
    return readRange(this.sql, state, start, limitBytes, wholeMessages);
  }

  isMessageStart(state: StreamState, offset: number): Promise<boolean> {
    return isMessageStart(this.sql, state, offset);
  }

  get producerLimits(): ProducerLimits {
    return this.clock.limits;
  }

  async producers(state: StreamState): Promise<[string, ProducerState][]> {
    const rows: ProducerRow[] = await this.sql`SELECT * FROM producers WHERE stream_id = ${state.id} ORDER BY producer_id`;
    const clock = this.producerClock();
    return rows.map(producerOf).filter(([, entry]) => isRemembered(entry, clock));
  }

  /**
   * Sliding TTL (spec §7.1), renewed at once, since any instance may be the next to read it, but
   * in one statement that costs no durable write in the common case: a stream without a TTL is
   * not written; one with a TTL gets its touch in the unlogged stream_touches (schema step 3),
   * and its own row only once a quarter of the TTL has passed since its row was last touched. So
   * a database crash shortens a stream's life by at most a quarter of its TTL, as the SQLite
   * engine's deferred touches do (storage/sqlite/ttl-touches.ts), and expiry is otherwise exact.
   */
  async renewTtl(key: string): Promise<void> {
    const { bucket, name } = splitKey(key);
    const now = this.now();
    await this.sql`WITH s AS (SELECT id, touched_at_ms, ttl_s FROM streams WHERE bucket = ${bucket} AND name = ${name} AND ttl_s IS NOT NULL AND NOT soft_deleted),
      durable AS (UPDATE streams SET touched_at_ms = GREATEST(streams.touched_at_ms, ${now}) FROM s
        WHERE streams.id = s.id AND ${now} - s.touched_at_ms >= s.ttl_s * 250 RETURNING streams.id)
      INSERT INTO stream_touches (stream_id, touched_at_ms) SELECT id, ${now} FROM s WHERE NOT EXISTS (SELECT 1 FROM durable)
      ON CONFLICT (stream_id) DO UPDATE SET touched_at_ms = GREATEST(stream_touches.touched_at_ms, EXCLUDED.touched_at_ms)`;
  }

  async attrs(state: StreamState): Promise<string | null> {
    if (state.attrsId === null) return null;
    const [row]: { attrs: string | null }[] = await this.sql`SELECT attrs FROM streams WHERE id = ${state.id}`;
    return row?.attrs ?? null;
  }

  // ---- writes -----------------------------------------------------------------------------------

  /**
   * An append is decided on the committed row and applied only if the row has not moved since
   * (conditional-apply.ts); a write that loses that race a few times in a row, and every other
   * write, runs under row locks instead (group-commit.ts), where it cannot lose.
   *
   * The writes of one stream that reach this instance are decided in the order they came. A
   * write that finds an earlier one of its stream still pending here cannot decide on the
   * committed row, which does not show the earlier one yet: it joins the locked queue behind it,
   * where the writes of one transaction see each other, so a burst on one stream still shares
   * one commit.
   */
  transact<T>(plan: WritePlan<T, SnapshotUpload>): Promise<T> {
    if (this.closing) return Promise.reject(new Error("the store is closed"));
    const keys = plan.reads.map((read) => read.key);
    const prior = keys.flatMap((key) => this.turns.get(key) ?? []);
    let queued: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (queued = resolve));
    let run: Promise<T>;
    if (prior.length === 0 && isConditional(plan)) {
      run = this.conditionally(plan);
    } else if (prior.length === 0) {
      // Submitted now, in the order of the calls, like the store's other locked writes.
      run = this.locked(plan);
      queued();
    } else {
      run = Promise.all(prior.map((turn) => turn.ready)).then(() => {
        try {
          return this.locked(plan);
        } finally {
          queued();
        }
      });
    }
    // The turn ends as the write settles, before its caller resumes: a caller's next write of the
    // stream is not queued behind one that is over.
    const over = () => {
      queued();
      for (const key of keys) if (this.turns.get(key) === turn) this.turns.delete(key);
    };
    const turn: Turn = { ready, done: run.then(over, over) };
    for (const key of keys) this.turns.set(key, turn);
    return run;
  }

  private async conditionally<T>(plan: WritePlan<T, SnapshotUpload>): Promise<T> {
    for (let i = 0; i < CONDITIONAL_ATTEMPTS; i++) {
      const outcome = await attempt(this.conditionalContext, plan);
      if (outcome === "locked") break;
      if (outcome !== "contended") return outcome.value;
    }
    return this.locked(plan);
  }

  private locked<T>(plan: WritePlan<T, SnapshotUpload>): Promise<T> {
    return this.submit(locksOf(plan), async (w) => {
      // The quota first: counting reclaims the bucket's expired streams (protocol/writes.ts).
      const refusal = plan.counts?.creates ? await this.quotaRefusal(w.sql, plan.counts.bucket, true) : null;
      const views = [];
      for (const read of plan.reads) views.push(await w.view(read));
      const decision = plan.decide(views, this.producerClock(), refusal);
      const applied = new Map<string, StreamState | undefined>();
      for (const effect of decision.effects) await w.apply(effect, applied);
      return decision.result(applied);
    });
  }

  stageSnapshot(): SnapshotUpload {
    return new PgUpload(this.sql, this.now);
  }

  async discardSnapshot(upload: SnapshotUpload): Promise<void> {
    await this.blobs.collect(await (upload as PgUpload).id());
  }

  openSnapshot(meta: SnapshotMeta): Promise<SnapshotReader> {
    return this.blobs.open(meta);
  }

  // ---- buckets and listings -----------------------------------------------------------------------

  putBucket(bucket: string): Promise<"created" | "exists" | ProtocolError> {
    return this.submit({ streams: [], buckets: [bucket] }, async (w) => {
      const found: unknown[] = await w.sql`SELECT 1 FROM buckets WHERE bucket_id = ${bucket} FOR UPDATE`;
      if (found.length > 0) return "exists" as const;
      const refused = await this.quotaRefusal(w.sql, bucket, false);
      if (refused) return refused;
      const made: unknown[] = await w.sql`INSERT INTO buckets (bucket_id, created_at_ms) VALUES (${bucket}, ${this.now()}) ON CONFLICT DO NOTHING RETURNING 1`;
      return made.length > 0 ? ("created" as const) : ("exists" as const);
    });
  }

  hasBucket(bucket: string): Promise<boolean> {
    return this.listings.hasBucket(bucket);
  }

  getBucket(bucket: string) {
    return this.listings.getBucket(bucket);
  }

  deleteBucket(bucket: string): Promise<"deleted" | "missing" | "not_empty"> {
    return this.submit({ streams: [], buckets: [bucket] }, async (w) => {
      const found: unknown[] = await w.sql`SELECT 1 FROM buckets WHERE bucket_id = ${bucket} FOR UPDATE`;
      if (found.length === 0) return "missing" as const;
      // Expired streams are reclaimed here rather than counted (spec §2.3).
      for (const key of await this.listings.expiredIn(w.sql, bucket)) await w.live(key);
      const [row]: { n: string }[] = await w.sql`SELECT stream_count AS n FROM buckets WHERE bucket_id = ${bucket}`;
      if (Number(row!.n) > 0) return "not_empty" as const;
      await w.sql`DELETE FROM buckets WHERE bucket_id = ${bucket}`;
      return "deleted" as const;
    });
  }

  listBuckets(query: ListQuery) {
    return this.listings.buckets(query);
  }

  listStreams(bucket: string, query: ListQuery) {
    return this.listings.streams(bucket, query);
  }

  counts() {
    return this.listings.counts();
  }

  /**
   * Counted inside the write's transaction under a lock (the bucket's row, or for a new bucket a
   * transaction-scoped advisory lock), so creates on two instances cannot both take the last place.
   */
  private async quotaRefusal(sql: TxSql, bucket: string, stream: boolean): Promise<ProtocolError | null> {
    if (this.quotas.maxBuckets === Infinity && this.quotas.maxStreamsPerBucket === Infinity) return null;
    await sql`SELECT pg_advisory_xact_lock(${0x75727362})`;
    const [b]: { n: string }[] = await sql`SELECT count(*) AS n FROM buckets WHERE bucket_id = ${bucket}`;
    const [all]: { n: string }[] = await sql`SELECT count(*) AS n FROM buckets`;
    let streams = 0;
    if (stream) {
      for (const key of await this.listings.expiredIn(sql, bucket)) await this.writerFor(sql).live(key);
      const [s]: { n: string }[] = await sql`SELECT COALESCE((SELECT stream_count FROM buckets WHERE bucket_id = ${bucket}), 0) AS n`;
      streams = Number(s!.n);
    }
    // The bucket count matters only when this write would add a bucket.
    return quotaRefusal(this.quotas, { buckets: Number(b!.n) > 0 ? null : Number(all!.n), streams: stream ? streams : null });
  }

  private writerFor(sql: TxSql): StreamWrites {
    return this.writer(sql, { changes: [], afterCommit: [], appendedBytes: 0, appendedMessages: 0 });
  }

  // ---- health -----------------------------------------------------------------------------------

  diskFailure(error: unknown) {
    return this.connection.failureOf(error);
  }

  writeState(): WriteState {
    return this.closing ? "closing" : this.connection.state;
  }

  probeWrite(): Promise<WriteState> {
    return this.connection.probe(async () => {
      await this.sql`SELECT 1`;
    });
  }

  stats(): StoreStats {
    return { appendedBytes: this.appendedBytes, appendedMessages: this.appendedMessages, damagedReads: 0, damagedStreams: 0, databaseBytes: this.sizes.databaseBytes, walBytes: this.sizes.walBytes, snapshotFileBytes: 0, segmentFileBytes: 0, reserveBytes: 0, backgroundTasks: this.background.size };
  }

  onChange(listener: (changes: ToldChange[]) => void): void {
    this.listeners.push(listener);
  }

  /** Told when this instance's LISTEN is back after its connection dropped (notify.ts). */
  onMissedChanges(listener: () => void): void {
    this.missedListeners.push(listener);
  }

  /** Resolves once what was started behind commits (reclaiming rows and blobs) is done. */
  async settle(): Promise<void> {
    while (this.turns.size > 0) await Promise.all([...this.turns.values()].map((turn) => turn.done));
    await this.conditional.drain();
    await this.writes.drain();
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.blobs.stopRenewing();
    while (this.turns.size > 0) await Promise.all([...this.turns.values()].map((turn) => turn.done));
    await this.writes.drain();
    this.closing = true;
    await this.settle();
    await this.notifier.stop();
    await this.primary.close();
  }

  // ---- expiry -----------------------------------------------------------------------------------

  private readonly reaping = new Set<string>();

  private reap(key: string): void {
    if (this.reaping.has(key) || this.closing) return;
    this.reaping.add(key);
    this.track(
      this.submit(withBucket(key), (w) => w.live(key))
        .then(() => undefined)
        .finally(() => this.reaping.delete(key)),
    );
  }

  private async sweep(): Promise<void> {
    for (const key of await this.listings.expired(100)) this.reap(key);
    await this.blobs.collectAbandoned(this.now());
    await this.sizes.measure();
    await this.statistics.keepUp();
  }
}

/** A write's place among its stream's writes on this instance. */
interface Turn {
  /** A later write of the stream may join the locked queue: this one is in it, or done. */
  ready: Promise<void>;
  done: Promise<void>;
}

/** Lost races in a row before a write takes the locked path. */
const CONDITIONAL_ATTEMPTS = 3;

/**
 * The rows a plan decides on. A plan of one stream whose first statement is its live load
 * (`w.view`, which locks the stream's row) and that changes no bucket count needs no separate lock.
 */
function locksOf(plan: WritePlan<unknown, SnapshotUpload>): Locks {
  const streams = plan.reads.map((read) => read.key);
  if (!plan.counts && streams.length === 1) return { streams, buckets: [], lockedByFirstRead: true };
  return { streams, buckets: plan.counts ? [plan.counts.bucket] : [] };
}

/** A write that may change the stream's bucket count as well (a delete, an expiry). */
const withBucket = (key: string): Locks => ({ streams: [key], buckets: [splitKey(key).bucket] });
