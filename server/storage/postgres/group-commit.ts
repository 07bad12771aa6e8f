// Group commit on PostgreSQL: the writes that arrive while a transaction is in flight share the
// next one, and one COMMIT (one WAL flush) acknowledges them all. Each write runs in its own
// SAVEPOINT, so a write that throws is rolled back alone and keeps its all-or-nothing outcome;
// the others commit. Nothing is acknowledged, and no change is told, before COMMIT returns.
//
// A deadlock or serialization failure between instances (40P01, 40001) aborts the whole
// transaction; its writes are run again, each in a transaction of its own, so one that keeps
// losing cannot hold the others back.

import type { SQL, TransactionSQL } from "bun";
import type { CommitObserver } from "../group-commit";
import type { StreamChange } from "../store";

/** What one write leaves for after the commit: changes to tell, keys to wake on other instances. */
export class WriteEffects {
  changes: StreamChange[] = [];
  /** Run once the transaction has committed (reclaiming what it let go). */
  afterCommit: (() => void)[] = [];
  appendedBytes = 0;
  appendedMessages = 0;
}

export type TxSql = TransactionSQL;

interface Job {
  run: (sql: TxSql, fx: WriteEffects) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  alone: boolean;
}

export interface GroupCommitHooks {
  /** Inside the transaction, after every write: sends the wake-ups (NOTIFY is delivered on commit). */
  beforeCommit(sql: TxSql, fx: WriteEffects[]): Promise<void>;
  committed(fx: WriteEffects[]): void;
  failed(error: unknown): void;
}

const RETRYABLE = new Set(["40P01", "40001"]);

export function isRetryable(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "string" && RETRYABLE.has(errno);
}

export class PgGroupCommit {
  private queue: Job[] = [];
  private running: Promise<void> | null = null;
  constructor(
    private readonly sql: SQL,
    private readonly hooks: GroupCommitHooks,
    private readonly observer?: CommitObserver,
  ) {}

  submit<T>(run: (sql: TxSql, fx: WriteEffects) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, resolve: resolve as (v: unknown) => void, reject, alone: false });
      this.running ??= this.loop();
    });
  }

  /** Resolves once every write submitted so far has been decided. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    // Let the writes of this event-loop turn join the first transaction.
    await Promise.resolve();
    try {
      while (this.queue.length > 0) {
        const first = this.queue[0]!;
        const jobs = first.alone ? this.queue.splice(0, 1) : this.takeShared();
        await this.runBatch(jobs);
      }
    } finally {
      this.running = null;
    }
  }

  private takeShared(): Job[] {
    const end = this.queue.findIndex((j) => j.alone);
    return this.queue.splice(0, end === -1 ? this.queue.length : end);
  }

  private async runBatch(jobs: Job[]): Promise<void> {
    const began = performance.now();
    const outcomes: ({ ok: true; value: unknown; fx: WriteEffects } | { ok: false; error: unknown })[] = [];
    try {
      await this.sql.begin(async (tx) => {
        for (const job of jobs) {
          const fx = new WriteEffects();
          try {
            const value = await tx.savepoint((sp) => job.run(sp, fx));
            outcomes.push({ ok: true, value, fx });
          } catch (error) {
            if (isRetryable(error) && !job.alone) throw error;
            outcomes.push({ ok: false, error });
          }
        }
        await this.hooks.beforeCommit(tx, outcomes.flatMap((o) => (o.ok ? [o.fx] : [])));
      });
    } catch (error) {
      if (isRetryable(error) && jobs.some((j) => !j.alone)) {
        for (const job of jobs) job.alone = true;
        this.queue.unshift(...jobs);
        return;
      }
      this.hooks.failed(error);
      for (const job of jobs) job.reject(error);
      return;
    }
    // BEGIN to COMMIT, the commit's WAL flush included (PostgreSQL syncs before COMMIT returns).
    const seconds = (performance.now() - began) / 1000;
    this.observer?.batch(jobs.length, seconds);
    this.observer?.sync(seconds);
    const fx = outcomes.flatMap((o) => (o.ok ? [o.fx] : []));
    this.hooks.committed(fx);
    jobs.forEach((job, i) => {
      const o = outcomes[i]!;
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
    for (const f of fx) for (const run of f.afterCommit) run();
  }
}
