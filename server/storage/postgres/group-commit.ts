// Group commit on PostgreSQL: the writes that arrive while a transaction is in flight share the
// next one, and one COMMIT (one WAL flush) acknowledges them all. Each write runs in its own
// SAVEPOINT, so a write that throws is rolled back alone and keeps its all-or-nothing outcome;
// the others commit. Nothing is acknowledged, and no change is told, before COMMIT returns.
//
// Instances lock rows in one order, so that their transactions do not deadlock one another: each
// transaction first locks every bucket row and then every stream row its writes name, each set
// sorted. A deadlock or serialization failure that happens all the same (a fork's source, a
// snapshot blob shared by forks) aborts the whole transaction; its writes are run again, each in
// a transaction of its own, a few times, so one that keeps losing cannot hold the others back.

import type { SQL, TransactionSQL } from "bun";
import type { CommitObserver } from "../commit-observer";
import type { StreamChange } from "../store";
import { BatchQueue } from "./batch-queue";

/** What one write leaves for after the commit: changes to tell, keys to wake on other instances. */
export class WriteEffects {
  changes: StreamChange[] = [];
  /** Run once the transaction has committed (reclaiming what it let go). */
  afterCommit: (() => void)[] = [];
  appendedBytes = 0;
  appendedMessages = 0;
}

export type TxSql = TransactionSQL;

/** The rows a write decides on, locked at the start of its transaction. */
export interface Locks {
  /** Path keys (`bucket/name`) of streams. */
  streams: readonly string[];
  /** Buckets whose row (stream count) the write may change. */
  buckets: readonly string[];
  /**
   * The write's first statement locks its one stream row itself (SELECT … FOR UPDATE of the
   * state it decides on). Alone in its transaction, it then needs no separate lock statement:
   * one round trip fewer, and a single row has no order to keep.
   */
  lockedByFirstRead?: boolean;
}

interface Job {
  locks: Locks;
  run: (sql: TxSql, fx: WriteEffects) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  alone: boolean;
  attempts: number;
}

/** A write that keeps deadlocking is refused after this many transactions. */
const MAX_ATTEMPTS = 5;

export interface GroupCommitHooks {
  /**
   * Inside the transaction, after every write: sends the wake-ups (NOTIFY is delivered on
   * commit), and returns their mark (notify.ts) for `committed`.
   */
  beforeCommit(sql: TxSql, fx: WriteEffects[]): Promise<number | null>;
  committed(fx: WriteEffects[], mark: number | null): void;
  failed(error: unknown): void;
}

const RETRYABLE = new Set(["40P01", "40001"]);

export function isRetryable(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno;
  return typeof errno === "string" && RETRYABLE.has(errno);
}

export class PgGroupCommit extends BatchQueue<Job> {
  constructor(
    private readonly sql: SQL,
    private readonly hooks: GroupCommitHooks,
    observer?: CommitObserver,
  ) {
    super(observer);
  }

  submit<T>(locks: Locks, run: (sql: TxSql, fx: WriteEffects) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => this.enqueue({ locks, run, resolve: resolve as (v: unknown) => void, reject, alone: false, attempts: 0 }));
  }

  protected async runBatch(jobs: Job[]): Promise<void> {
    const began = performance.now();
    const outcomes: ({ ok: true; value: unknown; fx: WriteEffects } | { ok: false; error: unknown })[] = [];
    let mark: number | null = null;
    try {
      await this.sql.begin(async (tx) => {
        await lockInOrder(tx, jobs);
        // A write alone in its transaction needs no savepoint: if it fails, nothing else is lost.
        if (jobs.length === 1) {
          const fx = new WriteEffects();
          outcomes.push({ ok: true, value: await jobs[0]!.run(tx, fx), fx });
        } else {
          for (const job of jobs) {
            const fx = new WriteEffects();
            try {
              outcomes.push({ ok: true, value: await tx.savepoint((sp) => job.run(sp, fx)), fx });
            } catch (error) {
              if (isRetryable(error)) throw error;
              outcomes.push({ ok: false, error });
            }
          }
        }
        mark = await this.hooks.beforeCommit(tx, outcomes.flatMap((o) => (o.ok ? [o.fx] : [])));
      });
    } catch (error) {
      if (isRetryable(error)) {
        const again = jobs.filter((job) => ++job.attempts < MAX_ATTEMPTS);
        for (const job of jobs) if (job.attempts >= MAX_ATTEMPTS) job.reject(error);
        for (const job of again) job.alone = true;
        this.requeue(again);
        return;
      }
      // The single write's own failure, or the transaction's (a lost connection, a failed COMMIT).
      this.hooks.failed(error);
      for (const job of jobs) job.reject(error);
      return;
    }
    // BEGIN to COMMIT, the commit's WAL flush included (PostgreSQL syncs before COMMIT returns).
    this.committedBatch(jobs.length, began);
    const fx = outcomes.flatMap((o) => (o.ok ? [o.fx] : []));
    this.hooks.committed(fx, mark);
    jobs.forEach((job, i) => {
      const o = outcomes[i]!;
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
    for (const f of fx) for (const run of f.afterCommit) run();
  }
}

/** Locks the buckets, then the streams, the jobs name, each sorted (the order every instance uses). */
async function lockInOrder(tx: TxSql, jobs: Job[]): Promise<void> {
  const only = jobs.length === 1 ? jobs[0]!.locks : undefined;
  if (only?.lockedByFirstRead && only.buckets.length === 0 && only.streams.length === 1) return;
  const buckets = new Set<string>();
  const streams = new Map<string, [string, string]>();
  for (const job of jobs) {
    for (const b of job.locks.buckets) buckets.add(b);
    for (const key of job.locks.streams) {
      const slash = key.indexOf("/");
      streams.set(key, [key.slice(0, slash), key.slice(slash + 1)]);
    }
  }
  if (buckets.size > 0) await tx`SELECT 1 FROM buckets WHERE bucket_id = ANY(${[...buckets]}::text[]) ORDER BY bucket_id FOR UPDATE`;
  if (streams.size === 0) return;
  const pairs = [...streams.values()];
  await tx`SELECT 1 FROM streams s JOIN unnest(${pairs.map((p) => p[0])}::text[], ${pairs.map((p) => p[1])}::text[]) AS k(b, n)
    ON s.bucket = k.b AND s.name = k.n ORDER BY s.bucket, s.name FOR UPDATE OF s`;
}
