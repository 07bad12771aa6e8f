// Appends wake subscriptions, and every append needs the list of subscriptions to find the ones
// that follow its stream. Reading the list once per append made every append pay a query (a round
// trip on PostgreSQL) even with no subscription at all. Here the changes reported in one turn of
// the event loop (a group commit's) and those that arrive while a read is in flight share the
// next read: one read per burst of changes, and each change is still matched against a list read
// after it was reported, so a subscription saved before an append committed is never missed.

import type { StoredSubscription } from "../../storage/subscriptions";

export type ListUse = (all: readonly StoredSubscription[]) => void;

export class SubscriptionListReads {
  private queued: ListUse[] = [];
  private reading = false;

  constructor(
    private readonly read: () => Promise<readonly StoredSubscription[]>,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** Runs `use` on a list read after this call. */
  request(use: ListUse): void {
    this.queued.push(use);
    if (this.reading) return;
    this.reading = true;
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    try {
      while (this.queued.length > 0) {
        const batch = this.queued;
        this.queued = [];
        let all: readonly StoredSubscription[];
        try {
          all = await this.read();
        } catch (error) {
          this.failed(error);
          continue;
        }
        for (const use of batch) use(all);
      }
    } finally {
      this.reading = false;
    }
  }
}
