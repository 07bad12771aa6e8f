// Group commit for conditional applies (conditional-apply.ts): each is one prepared statement that
// writes only if the stream's row still has the version its decision read, and says whether it
// did. The applies queued while a commit is in flight share the next transaction: one COMMIT, one
// WAL flush, their statements sent together. Alone, an apply runs without BEGIN and COMMIT (its
// statement is its transaction), so a write costs its read and this one round trip.
//
// Statements run in the order of their streams' keys, the order every instance takes, so two
// instances' transactions do not deadlock on stream rows. An apply that fails for its own sake
// (not the connection's) in a shared transaction aborts the others: each then runs again alone,
// so its failure stays its own. Nothing is acknowledged, and no change told, before COMMIT returns.

import type { SQL } from "bun";
import type { CommitObserver } from "../commit-observer";
import { BatchQueue } from "./batch-queue";
import { isConnectionLoss } from "./connection";
import { isRetryable, type WriteEffects } from "./group-commit";

export interface ConditionalHooks {
  committed(fx: WriteEffects[]): void;
  failed(error: unknown): void;
}

interface Job {
  /** The stream's path key: the order statements run in. */
  key: string;
  text: string;
  values: unknown[];
  fx: WriteEffects;
  alone: boolean;
  /** True if it applied, false if the version had moved (or its transaction lost a deadlock). */
  resolve: (applied: boolean) => void;
  reject: (error: unknown) => void;
}

export class ConditionalCommit extends BatchQueue<Job> {
  constructor(
    private readonly sql: SQL,
    private readonly hooks: ConditionalHooks,
    observer?: CommitObserver,
  ) {
    super(observer);
  }

  /** `text` must return one row with an `applied` count (0 when the condition no longer held). */
  submit(key: string, text: string, values: unknown[], fx: WriteEffects): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => this.enqueue({ key, text, values, fx, alone: false, resolve, reject }));
  }

  protected async runBatch(jobs: Job[]): Promise<void> {
    jobs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const began = performance.now();
    let applied: boolean[];
    try {
      applied = jobs.length === 1 ? [await this.run(this.sql, jobs[0]!)] : await this.sql.begin((tx) => settleAll(jobs.map((job) => this.run(tx, job))));
    } catch (error) {
      if (isRetryable(error)) {
        // Nothing committed: each write reads and decides again.
        for (const job of jobs) job.resolve(false);
      } else if (jobs.length > 1 && !isConnectionLoss(error)) {
        for (const job of jobs) job.alone = true;
        this.requeue(jobs);
      } else {
        this.hooks.failed(error);
        for (const job of jobs) job.reject(error);
      }
      return;
    }
    this.committedBatch(jobs.length, began);
    this.hooks.committed(jobs.filter((_, i) => applied[i]).map((job) => job.fx));
    jobs.forEach((job, i) => job.resolve(applied[i]!));
  }

  private async run(sql: SQL, job: Job): Promise<boolean> {
    const [row]: { applied: number }[] = await sql.unsafe(job.text, job.values);
    return Number(row?.applied ?? 0) > 0;
  }
}

/** Sends every statement at once (they queue on the transaction's connection, in order), then waits for all. */
async function settleAll(runs: Promise<boolean>[]): Promise<boolean[]> {
  const settled = await Promise.allSettled(runs);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<boolean>).value);
}
