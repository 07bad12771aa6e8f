// Writes what the message log deferred (message-log.ts) once writes pause, so that a restart has
// little to replay, and once more when the store closes.

import { failureOf } from "../write-health";
import type { StoreLog } from "../store-log";
import type { Batch } from "./batch";
import type { MessageLog } from "./message-log";

export class Materializer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly log: MessageLog,
    private readonly submit: (run: (tx: Batch) => void) => Promise<void>,
    private readonly report: StoreLog,
  ) {}

  /** After a commit, and after start-up replayed the log: a run once the log's interval has passed. */
  schedule(): void {
    if (this.timer !== undefined || !this.log.deferred) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.log.deferred) return;
      this.submit((tx) => this.log.materialize(tx)).catch(() => this.schedule());
    }, this.log.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /**
   * The last deferred rows, at close. A full or failing disk may refuse them; the log rows they
   * index are durable, and the next start replays them, so the stop goes on.
   */
  async flush(): Promise<void> {
    if (!this.log.deferred) return;
    await this.submit((tx) => this.log.materialize(tx)).catch((error: unknown) => {
      if (failureOf(error) === null) throw error;
      this.report("warn", "stopping without writing the last index rows (the next start replays them)", { error: (error as Error).message });
    });
  }
}
