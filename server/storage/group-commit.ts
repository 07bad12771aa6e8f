// Group commit: every write submitted in one turn of the event loop is decided together, and
// their SQL ops go to the CommitSink as one transaction, while each write keeps its own outcome.
// The event loop never waits for SQLite or the disk: while one transaction commits, the next
// writes are decided against its committed-but-not-yet-durable effects. A write is acknowledged
// (its promise resolves), and readers see it, only once its transaction is durable.

import type { CommitSink } from "./commit-sink";
import type { SqlOp } from "./sql-ops";

export interface Transactional<Tx extends { ops: SqlOp[] }> {
  /** A fresh overlay for one transaction. */
  open(): Tx;
  /** Runs last, e.g. to write each changed row once however many writes touched it. */
  finish(tx: Tx): void;
  /** Decided and sent: later transactions must see this one's effects. */
  committed(tx: Tx): void;
  /** Durable: publish to readers and wake live reads. */
  durable(tx: Tx): void;
}

interface Pending<Tx> {
  run: (tx: Tx) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<Tx extends { ops: SqlOp[] }> {
  private queue: Pending<Tx>[] = [];
  private scheduled = false;
  private outstanding = 0;
  private idle: (() => void)[] = [];

  constructor(
    private readonly target: Transactional<Tx>,
    private readonly sink: CommitSink,
  ) {}

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
    return !this.scheduled && this.queue.length === 0 && this.outstanding === 0;
  }

  private settleIdle(): void {
    if (this.isIdle()) for (const done of this.idle.splice(0)) done();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length > 0 && !this.decide(batch)) {
      // A decision that throws is a bug; it must not fail its neighbours: decide each alone.
      for (const op of batch) this.decide([op]);
    }
    this.settleIdle();
  }

  private decide(ops: Pending<Tx>[]): boolean {
    const tx = this.target.open();
    const results: unknown[] = [];
    try {
      for (const op of ops) results.push(op.run(tx));
      this.target.finish(tx);
    } catch (error) {
      if (ops.length === 1) ops[0]!.reject(error);
      return false;
    }
    this.target.committed(tx);
    this.outstanding++;
    this.sink.commit(tx.ops).then(
      () => {
        this.target.durable(tx);
        ops.forEach((op, i) => op.resolve(results[i]));
        this.outstanding--;
        this.settleIdle();
      },
      (error) => {
        for (const op of ops) op.reject(error);
        this.outstanding--;
        this.settleIdle();
      },
    );
    return true;
  }
}
