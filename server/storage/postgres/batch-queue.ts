// The queue both PostgreSQL group commits run on (group-commit.ts, conditional-commit.ts): the
// writes that arrive while a transaction is in flight wait and share the next one. A write marked
// alone (run again after a shared transaction failed for another's sake) takes one to itself.
//
// A transaction may leave its acknowledgements to the queue. When the next transaction is ready
// to go, they run on the next turn of the event loop: Bun's SQL client puts a statement on the
// socket only once the turn that called it ends, so PostgreSQL then works on the next group while
// this process answers the last one's requests, instead of one after the other.

import type { CommitObserver } from "../commit-observer";

export interface Queued {
  alone: boolean;
}

export abstract class BatchQueue<J extends Queued> {
  private queue: J[] = [];
  private running: Promise<void> | null = null;

  constructor(private readonly observer?: CommitObserver) {}

  /** Resolves once every write submitted so far has been decided. */
  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Runs the writes of one transaction; may requeue some. What it returns acknowledges them. */
  protected abstract runBatch(jobs: J[]): Promise<(() => void) | void>;

  /** Tells the observer of a transaction of `writes` that committed, begun at `began` (performance.now()). */
  protected committedBatch(writes: number, began: number): void {
    const seconds = (performance.now() - began) / 1000;
    this.observer?.batch(writes, seconds);
    this.observer?.sync(seconds);
  }

  protected enqueue(job: J): void {
    this.queue.push(job);
    this.running ??= this.loop();
  }

  /** Puts writes back at the head of the queue, before any submitted since. */
  protected requeue(jobs: J[]): void {
    this.queue.unshift(...jobs);
  }

  private async loop(): Promise<void> {
    // Let the writes of this event-loop turn join the first transaction.
    await Promise.resolve();
    let acknowledge: (() => void) | void = undefined;
    let acknowledged = Promise.resolve();
    try {
      do {
        while (this.queue.length > 0) {
          const end = this.queue[0]!.alone ? 1 : this.queue.findIndex((j) => j.alone);
          const next = this.runBatch(this.queue.splice(0, end === -1 ? this.queue.length : end));
          const last = acknowledge;
          acknowledge = undefined;
          if (last) acknowledged = new Promise((done) => setImmediate(() => (last(), done())));
          acknowledge = await next;
        }
        // Acknowledged in order; writes submitted meanwhile are this loop's, as it is still running.
        await acknowledged;
      } while (this.queue.length > 0);
    } finally {
      acknowledge?.();
      this.running = null;
    }
  }
}
