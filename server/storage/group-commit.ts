// Group commit: every write submitted in one turn of the event loop runs in one SQLite
// transaction and shares one sync, while each keeps its own outcome. A write is acknowledged
// (its promise resolves) only after COMMIT returns, so only durable state is ever acknowledged.

import type { Statement } from "bun:sqlite";

export interface Transactional<Tx> {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  /** A fresh overlay for one transaction. */
  open(): Tx;
  /** Runs last inside the transaction, e.g. to write each changed row once however many writes touched it. */
  finish(tx: Tx): void;
  /** Runs after COMMIT: publish the overlay to the in-memory cache and wake readers. */
  committed(tx: Tx): void;
}

interface Pending<Tx> {
  run: (tx: Tx) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<Tx> {
  private queue: Pending<Tx>[] = [];
  private scheduled = false;
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

  /** Resolves once everything submitted so far has committed or failed. */
  drain(): Promise<void> {
    if (!this.scheduled && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0 && !this.runBatch(batch)) {
      // One write's failure (a full disk, a bug) must not fail its neighbours: retry each alone.
      for (const op of batch) this.runBatch([op]);
    }
    if (this.queue.length === 0) for (const done of this.idle.splice(0)) done();
  }

  private runBatch(batch: Pending<Tx>[]): boolean {
    const tx = this.target.open();
    const results: unknown[] = [];
    try {
      this.target.begin.run();
      for (const op of batch) results.push(op.run(tx));
      this.target.finish(tx);
      this.target.commit.run();
    } catch (error) {
      try {
        this.target.rollback.run();
      } catch {
        // Already rolled back by SQLite itself.
      }
      if (batch.length === 1) batch[0]!.reject(error);
      return false;
    }
    this.target.committed(tx);
    batch.forEach((op, i) => op.resolve(results[i]));
    return true;
  }
}
