// The queue both PostgreSQL group commits run on (group-commit.ts, conditional-commit.ts): the
// writes that arrive while transactions are in flight wait and share the next one. A write marked
// alone (run again after a shared transaction failed for another's sake) takes one to itself.
//
// Up to `inFlight` transactions run at once, each on its own connection. PostgreSQL flushes the
// WAL of transactions that commit together once, and a group's statement runs while the group
// before it waits on that flush; one at a time, the flush and the statement took turns.

import type { CommitObserver } from "../commit-observer";

export interface Queued {
  alone: boolean;
}

export abstract class BatchQueue<J extends Queued> {
  private queue: J[] = [];
  private readonly running = new Set<Promise<void>>();
  private scheduled = false;

  constructor(
    private readonly observer?: CommitObserver,
    private readonly inFlight = 1,
  ) {}

  /** Resolves once every write submitted so far has been decided. */
  async drain(): Promise<void> {
    while (this.running.size > 0 || this.scheduled) await Promise.all([...this.running, Promise.resolve()]);
  }

  /** Runs the writes of one transaction; may requeue some. */
  protected abstract runBatch(jobs: J[]): Promise<void>;

  /** Tells the observer of a transaction of `writes` that committed, begun at `began` (performance.now()). */
  protected committedBatch(writes: number, began: number): void {
    const seconds = (performance.now() - began) / 1000;
    this.observer?.batch(writes, seconds);
    this.observer?.sync(seconds);
  }

  protected enqueue(job: J): void {
    this.queue.push(job);
    if (this.scheduled || this.running.size >= this.inFlight) return;
    // Let the writes of this event-loop turn join the transaction.
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.start();
    });
  }

  /** Puts writes back at the head of the queue, before any submitted since. */
  protected requeue(jobs: J[]): void {
    this.queue.unshift(...jobs);
  }

  private start(): void {
    while (this.queue.length > 0 && this.running.size < this.inFlight) {
      const end = this.queue[0]!.alone ? 1 : this.queue.findIndex((j) => j.alone);
      const batch = this.runBatch(this.queue.splice(0, end === -1 ? this.queue.length : end));
      const run: Promise<void> = batch.finally(() => {
        this.running.delete(run);
        this.start();
      });
      this.running.add(run);
    }
  }
}
