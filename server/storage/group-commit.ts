// Group commit: every write submitted in one turn of the event loop runs in one SQLite
// transaction, while each keeps its own outcome. With a `sync` function (durable mode), COMMIT
// only writes the WAL; one fsync, run off the event loop, then makes every transaction committed
// before it started durable at once, and only then are those writes acknowledged (their promises
// resolve) and made visible to readers. Later transactions are decided meanwhile against the
// committed-but-not-yet-durable state, so the event loop never waits for the disk.

import type { Statement } from "bun:sqlite";

export interface Transactional<Tx> {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  /** A fresh overlay for one transaction. */
  open(): Tx;
  /** Undo whatever the overlay changed in place, after a rollback. */
  abort(tx: Tx): void;
  /** Runs last inside the transaction, e.g. to write each changed row once however many writes touched it. */
  finish(tx: Tx): void;
  /** After COMMIT, before it is durable: later transactions must see this one's effects. */
  committed(tx: Tx): void;
  /** Once durable: publish to readers and wake live reads. */
  durable(tx: Tx): void;
  /** Makes every committed transaction durable; absent when COMMIT itself is as durable as promised. */
  sync?: () => Promise<void>;
  /** A failed sync leaves the durability of committed writes unknown: the process must stop. */
  syncFailed(error: unknown): void;
}

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
  private syncing = false;
  private idle: (() => void)[] = [];

  constructor(private readonly target: Transactional<Tx>) {}

  submit<T>(run: (tx: Tx) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Resolves once everything submitted so far is durable or has failed. */
  drain(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private isIdle(): boolean {
    return !this.scheduled && this.queue.length === 0 && this.awaitingSync.length === 0 && !this.syncing;
  }

  private settleIdle(): void {
    if (this.isIdle()) for (const done of this.idle.splice(0)) done();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0 && !this.runBatch(batch)) {
      // One write's failure (a full disk, a bug) must not fail its neighbours: retry each alone.
      for (const op of batch) this.runBatch([op]);
    }
    this.settleIdle();
  }

  private runBatch(ops: Pending<Tx>[]): boolean {
    const tx = this.target.open();
    const results: unknown[] = [];
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
      this.target.abort(tx);
      if (ops.length === 1) ops[0]!.reject(error);
      return false;
    }
    this.target.committed(tx);
    if (!this.target.sync) {
      this.target.durable(tx);
      ops.forEach((op, i) => op.resolve(results[i]));
    } else {
      this.awaitingSync.push({ tx, ops, results });
      this.startSync();
    }
    return true;
  }

  private startSync(): void {
    if (this.syncing || this.awaitingSync.length === 0) return;
    this.syncing = true;
    // Everything committed up to now rides on this sync; later commits wait for the next one.
    const covered = this.awaitingSync.length;
    this.target.sync!().then(
      () => {
        this.syncing = false;
        for (const c of this.awaitingSync.splice(0, covered)) {
          this.target.durable(c.tx);
          c.ops.forEach((op, i) => op.resolve(c.results[i]));
        }
        this.startSync();
        this.settleIdle();
      },
      (error) => this.target.syncFailed(error),
    );
  }
}
