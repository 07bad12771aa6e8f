// What happens to a transaction's Batch around group commit (group-commit.ts): it opens over the
// states committed but not yet durable, writes each changed row once before COMMIT, becomes what
// later transactions are decided against once committed, and what readers see once durable.

import type { StreamState } from "../../protocol/state";
import type { StreamChange } from "../store";
import type { WriteHealth } from "../write-health";
import { Batch } from "./batch";
import type { MessageLog } from "./message-log";
import type { Statements } from "./rows";
import type { StreamCache } from "./stream-cache";
import type { StreamCounts } from "./stream-counts";

export interface BatchLifecycleDeps {
  st: Statements;
  log: MessageLog;
  streamCounts: StreamCounts;
  health: WriteHealth;
  /** Committed, not yet durable: what the next writes are decided against. */
  pending: Map<string, StreamState | null>;
  /** Durable: what reads see. */
  cache: StreamCache;
}

type BatchListener = (batch: Batch) => void;

export class BatchLifecycle {
  /** What durable transactions appended, for the metrics. */
  appendedBytes = 0;
  appendedMessages = 0;
  private readonly onCommitted: BatchListener[] = [];
  private readonly onDurable: BatchListener[] = [];
  private readonly onChanges: ((changes: StreamChange[]) => void)[] = [];

  constructor(private readonly d: BatchLifecycleDeps) {}

  open(): Batch {
    return new Batch(this.d.pending, this.d.cache);
  }

  /** Inside the transaction, last: each changed row written once, however many writes changed it. */
  finish(batch: Batch): void {
    const { st, log } = this.d;
    for (const [key, full] of batch.dirty) {
      const state = batch.overlay.get(key);
      if (!state) continue;
      if (full) st.update(state);
      else st.updateHot(state);
    }
    log.flush(batch);
    if (log.due(batch)) log.materialize(batch);
    this.d.streamCounts.write(batch);
  }

  committed(batch: Batch): void {
    // A client's write (or the probe) that commits shows the disk takes writes again; the
    // store's own upkeep may need no new space, so it shows nothing.
    if (batch.clientWrite) this.d.health.succeeded();
    for (const [key, state] of batch.overlay) this.d.pending.set(key, state);
    this.d.log.committed(batch);
    for (const listener of this.onCommitted) listener(batch);
  }

  durable(batch: Batch): void {
    const { cache, pending } = this.d;
    this.appendedBytes += batch.appendedBytes;
    this.appendedMessages += batch.appendedMessages;
    this.d.streamCounts.durable(batch);
    for (const [key, state] of batch.overlay) {
      cache.set(key, state);
      if (pending.get(key) === state) pending.delete(key);
    }
    cache.trim();
    for (const listener of this.onDurable) listener(batch);
    if (batch.changes.length > 0) for (const listener of this.onChanges) listener(batch.changes);
    for (const run of batch.onDurable) run();
  }

  /** After each COMMIT, before the transaction is durable. */
  whenCommitted(listener: BatchListener): void {
    this.onCommitted.push(listener);
  }

  /** Once each transaction is durable, before live readers hear of it. */
  whenDurable(listener: BatchListener): void {
    this.onDurable.push(listener);
  }

  /** What live readers hear: the changes of each durable transaction that made any. */
  whenChanged(listener: (changes: StreamChange[]) => void): void {
    this.onChanges.push(listener);
  }
}
