// Group commit for conditional applies (conditional-apply.ts): the appends queued while a commit
// is in flight share the next one, as one statement over all of them (apply-statement.ts) that
// writes each only if its stream's row still has the version its decision read, and says which
// it wrote. That statement is its own transaction: one round trip, one WAL flush, one set of
// wake-ups for the group.
//
// A group holds each stream once: PgStore.transact sends a stream's next write down this path
// only once its last one has settled. An apply that fails for its own sake (not the connection's)
// in a shared statement fails the others: each then runs again alone, so its failure stays its
// own. Nothing is acknowledged, and no change told, before the commit returns.

import type { SQL } from "bun";
import type { CommitObserver } from "../commit-observer";
import { APPLY_ONE, applyOneValues, fitsOne } from "./apply-one-statement";
import { APPLY, appliedIds, applyValues, type AppendApply } from "./apply-statement";
import { BatchQueue } from "./batch-queue";
import { isConnectionLoss } from "./connection";
import { isRetryable, type WriteEffects } from "./group-commit";

export interface ConditionalHooks {
  /** The NOTIFY payloads that wake other instances' readers of these streams, and their mark (notify.ts). */
  wakeUps(streams: { id: number; key: string }[]): { mark: number | null; payloads: string[] };
  committed(fx: WriteEffects[], mark: number | null): void;
  failed(error: unknown): void;
}

interface Job {
  apply: AppendApply;
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

  submit(apply: AppendApply, fx: WriteEffects): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => this.enqueue({ apply, fx, alone: false, resolve, reject }));
  }

  protected async runBatch(jobs: Job[]): Promise<(() => void) | void> {
    // Rows in id order, the order every instance's statements take them in, so that two
    // instances' groups do not deadlock on each other's rows.
    jobs.sort((a, b) => a.apply.next.id - b.apply.next.id);
    const { mark, payloads } = this.hooks.wakeUps(jobs.map((job) => ({ id: job.apply.next.id, key: job.apply.key })));
    const began = performance.now();
    let applied: Set<number>;
    try {
      const applies = jobs.map((job) => job.apply);
      const [statement, values] = fitsOne(applies, payloads) ? [APPLY_ONE, applyOneValues(applies[0]!, payloads[0])] : [APPLY, applyValues(applies, payloads)];
      applied = appliedIds(await this.sql.unsafe(statement, values));
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
    // The next group's streams are none of these (see the header), so its statement may go first.
    return () => {
      const outcomes = jobs.map((job) => [job, applied.has(job.apply.next.id)] as const);
      this.hooks.committed(
        outcomes.filter(([, ok]) => ok).map(([job]) => job.fx),
        mark,
      );
      for (const [job, ok] of outcomes) job.resolve(ok);
    };
  }
}
