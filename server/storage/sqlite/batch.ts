// One transaction's view of the streams, layered over what is pending and what is durable.

import { streamKey, type StreamState } from "../../protocol/state";
import { LogWrites } from "./log-writes";
import type { StreamChange } from "../store";
import type { StreamCache } from "./stream-cache";
import { CountChanges } from "./count-changes";

const SMALL_BATCH_BYTES = 16 * 1024;

/**
 * One transaction's view: its own changes, over those of transactions committed but not yet
 * durable, over the durable cache that readers see. Its changes are new state values (producer
 * tables included, producer-table.ts) held here alone, so a rollback just drops the batch.
 */
export class Batch {
  readonly overlay = new Map<string, StreamState | null>();
  readonly changes: StreamChange[] = [];
  readonly log = new LogWrites();
  /** Streams and buckets this transaction created or deleted (stream-counts.ts). */
  readonly counts = new CountChanges();
  /** What this transaction's appends and creates wrote, for the metrics once it is durable. */
  appendedBytes = 0;
  appendedMessages = 0;
  /** Whether a client's write (or the readiness probe) is in it, not only the store's upkeep. */
  clientWrite = false;
  /**
   * Streams whose row must be rewritten before COMMIT: once per batch, not once per write. The
   * value says whether more than the columns an append changes (the "hot" ones) may differ.
   */
  readonly dirty = new Map<string, boolean>();
  /** Run once this transaction is durable: handing what it orphaned to the reclaimer. */
  readonly onDurable: (() => void)[] = [];
  constructor(
    private readonly pending: Map<string, StreamState | null>,
    private readonly cache: StreamCache,
  ) {}
  /** No more than a few WAL pages: a stream row or two and appends of up to SMALL_BATCH_BYTES. */
  small(): boolean {
    if (this.log.materializedUpTo !== null || this.log.deleted.length > 0) return false;
    let bytes = 0;
    for (const entry of this.log.entries) bytes += entry.data.length;
    return bytes <= SMALL_BATCH_BYTES;
  }
  get(key: string): StreamState | undefined {
    const mine = this.overlay.get(key);
    if (mine !== undefined) return mine ?? undefined;
    const pending = this.pending.get(key);
    return pending === undefined ? this.cache.get(key) : pending ?? undefined;
  }
  put(state: StreamState, onlyHotColumns = false): void {
    const key = streamKey(state.bucket, state.name);
    this.overlay.set(key, state);
    this.dirty.set(key, this.dirty.get(key) === true || !onlyHotColumns);
  }
  /** A state whose row this transaction has written as it is (a plain create's insert). */
  putWritten(key: string, state: StreamState): void {
    this.overlay.set(key, state);
  }
  /** A change whose row the message log writes later (its log rows carry it meanwhile). */
  putDeferred(key: string, state: StreamState): void {
    this.overlay.set(key, state);
  }
  remove(key: string): void {
    this.overlay.set(key, null);
  }
}
