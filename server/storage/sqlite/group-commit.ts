// Group commit: every write submitted in one turn of the event loop runs in one SQLite
// transaction, while each keeps its own outcome. With a `sync` function (durable mode), COMMIT
// only writes the WAL; one fsync, run off the event loop, then makes every transaction committed
// before it started durable at once, and only then are those writes acknowledged (their promises
// resolve) and made visible to readers. Later transactions are decided meanwhile against the
// committed-but-not-yet-durable state, so the event loop does not wait for the disk, except
// for a small lone write while nothing else is going on: the event loop then syncs it at once
// rather than hand the sync to a pool thread and wait to hear back.

import type { Statement } from "bun:sqlite";
import type { CommitObserver } from "../commit-observer";

export interface Transactional<Tx> {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  /** A fresh overlay for one transaction; a rollback drops it, so it must change nothing in place. */
  open(): Tx;
  /** Runs last inside the transaction, e.g. to write each changed row once however many writes touched it. */
  finish(tx: Tx): void;
  /** After COMMIT, before it is durable: later transactions must see this one's effects. */
  committed(tx: Tx): void;
  /** Once durable: publish to readers and wake live reads. */
  durable(tx: Tx): void;
  /** Makes every committed transaction durable; absent when COMMIT itself is as durable as promised. */
  sync?: Sync;
  /** A failed sync leaves the durability of committed writes unknown: the process must stop. */
  syncFailed(error: unknown): void;
  /** A write that failed on its own (after its batch was retried one write at a time). */
  failed(error: unknown): void;
  /**
   * Whether the event loop may stop for this transaction's sync: it wrote so little that the sync
   * is short, and no other request is in progress that the stop would hold up.
   */
  mayHoldLoop(tx: Tx): boolean;
}

export interface Sync {
  /** Off the event loop, which meanwhile goes on deciding other writes. */
  inBackground(): Promise<void>;
  /** On the event loop. */
  now(): void;
}

/**
 * Background syncs run on Bun's thread pool; a second one may start before the first returns, which
 * beat one thread of our own running them in turn (docs/design/group-commit.md).
 */
const MAX_SYNCS_IN_FLIGHT = 2;

/** How long after two writes last shared a batch every sync stays off the event loop. */
export const CONCURRENT_FOR_MS = 20;

interface Pending<Tx> {
  run: (tx: Tx) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

interface Committed<Tx> {
  tx: Tx;
  ops: Pending<Tx>[];
  results: unknown[];
}

export class GroupCommit<Tx> {
  private queue: Pending<Tx>[] = [];
  private scheduled = false;
  private awaitingSync: Committed<Tx>[] = [];
  /** Transactions asked to be synced and acknowledged, counted from the start. */
  private syncRequestedUpTo = 0;
  private acknowledgedCount = 0;
  private syncsInFlight = 0;
  /** After a failed sync nobody can say what is on disk, so nothing more is acknowledged. */
  private syncBroken = false;
  private lastSharedBatchAt = -Infinity;
  private idle: (() => void)[] = [];
  /** How many holds (see `hold`) are in force. */
  private holds = 0;

  constructor(
    private readonly target: Transactional<Tx>,
    private readonly observer?: CommitObserver,
  ) {}

  submit<T>(run: (tx: Tx) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (v: unknown) => void, reject });
      if (this.holds === 0) this.schedule();
    });
  }

  /**
   * Begins no transaction until `until` settles: writes submitted meanwhile queue, and then share
   * one. A checkpoint that finishes with no transaction in between lets SQLite restart the WAL
   * (checkpoints.ts).
   */
  hold(until: Promise<void>): void {
    this.holds++;
    void until.then(() => {
      if (--this.holds === 0 && this.queue.length > 0) this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Resolves once everything submitted so far is durable or has failed. */
  drain(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private isIdle(): boolean {
    return !this.scheduled && this.queue.length === 0 && this.awaitingSync.length === 0 && this.syncsInFlight === 0;
  }

  private settleIdle(): void {
    if (this.isIdle()) for (const done of this.idle.splice(0)) done();
  }

  private flush(): void {
    this.scheduled = false;
    // Held since this flush was scheduled: the hold's end schedules the next.
    if (this.holds > 0) return;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 1) this.lastSharedBatchAt = performance.now();
    // One write's failure (a full disk, a bug) must not fail its neighbours: retry each alone. A
    // write that failed alone has had its answer; running it again could commit what was refused.
    if (batch.length > 0 && !this.runBatch(batch) && batch.length > 1) {
      for (const op of batch) this.runBatch([op]);
    }
    this.settleIdle();
  }

  private runBatch(ops: Pending<Tx>[]): boolean {
    const tx = this.target.open();
    const results: unknown[] = [];
    const startedAt = performance.now();
    try {
      this.target.begin.run();
      for (const op of ops) results.push(op.run(tx));
      this.target.finish(tx);
      this.target.commit.run();
    } catch (error) {
      try {
        this.target.rollback.run();
      } catch {
        // Already rolled back by SQLite itself.
      }
      if (ops.length === 1) {
        this.target.failed(error);
        ops[0]!.reject(error);
      }
      return false;
    }
    this.observer?.batch(ops.length, (performance.now() - startedAt) / 1000);
    this.target.committed(tx);
    if (!this.target.sync) {
      this.target.durable(tx);
      ops.forEach((op, i) => op.resolve(results[i]));
    } else {
      this.awaitingSync.push({ tx, ops, results });
      if (this.maySyncNow(ops, tx)) this.syncNow();
      else this.startSync();
    }
    return true;
  }

  /**
   * A lone write's sync runs on the event loop, which saves it the round trip to a pool thread.
   * While writers are concurrent, a sync on the loop would hold up the next batch, and while other
   * requests are in progress (mayHoldLoop) it would hold them up: then it goes to the pool
   * (docs/design/group-commit.md).
   */
  private maySyncNow(ops: Pending<Tx>[], tx: Tx): boolean {
    return (
      ops.length === 1 &&
      this.syncsInFlight === 0 &&
      performance.now() - this.lastSharedBatchAt > CONCURRENT_FOR_MS &&
      this.target.mayHoldLoop(tx)
    );
  }

  /** Transactions committed so far, counted from the start. */
  private get committedCount(): number {
    return this.acknowledgedCount + this.awaitingSync.length;
  }

  private syncNow(): void {
    if (this.syncBroken) return;
    const upTo = (this.syncRequestedUpTo = this.committedCount);
    const startedAt = performance.now();
    try {
      this.target.sync!.now();
    } catch (error) {
      this.failSync(error);
      return;
    }
    this.observer?.sync((performance.now() - startedAt) / 1000);
    this.acknowledge(upTo);
  }

  private failSync(error: unknown): void {
    this.syncBroken = true;
    this.target.syncFailed(error);
  }

  private acknowledge(upTo: number): void {
    if (this.syncBroken) return;
    while (this.acknowledgedCount < upTo) {
      const c = this.awaitingSync.shift()!;
      this.acknowledgedCount++;
      this.target.durable(c.tx);
      c.ops.forEach((op, i) => op.resolve(c.results[i]));
    }
  }

  private startSync(): void {
    const committed = this.committedCount;
    if (this.syncBroken || committed === this.syncRequestedUpTo || this.syncsInFlight >= MAX_SYNCS_IN_FLIGHT) return;
    this.syncsInFlight++;
    // An fsync makes durable everything written before it began, whatever other fsyncs are
    // still running: this one covers every transaction committed so far.
    const upTo = (this.syncRequestedUpTo = committed);
    const startedAt = performance.now();
    this.target.sync!.inBackground().then(
      () => {
        this.observer?.sync((performance.now() - startedAt) / 1000);
        this.syncsInFlight--;
        this.acknowledge(upTo);
        this.startSync();
        this.settleIdle();
      },
      (error) => this.failSync(error),
    );
  }
}
