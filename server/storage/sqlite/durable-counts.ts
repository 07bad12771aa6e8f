// The counts as readers see them: durable, and without expired streams. StreamCounts keeps what
// has committed (stream-counts.ts); this takes off what readers must not see yet (writes
// committed but not yet durable, which the pending map holds beside the durable states in the
// cache) and the streams that have expired but are not yet reclaimed.

import { isExpired } from "../../protocol/lifetime";
import { streamKey, type StreamState } from "../../protocol/state";
import type { StreamCache } from "./stream-cache";
import type { Count } from "../prefix-count";
import type { StreamCounts } from "./stream-counts";

export interface DurableCountsDeps {
  counts: StreamCounts;
  /** Committed, not yet durable: key → the committed state (null: removed). */
  pending: Map<string, StreamState | null>;
  cache: StreamCache;
  now: () => number;
  /** Reclaims a stream found expired. */
  reap: (key: string) => void;
}

export class DurableCounts {
  constructor(private readonly d: DurableCountsDeps) {}

  /** Live streams and buckets in the store. */
  totals(): { streams: number; buckets: number } {
    // The stored totals are durable ones already (StreamCounts.durable); of the streams with a
    // write not yet durable, `expired` leaves out none, so those expired are taken off here.
    const now = this.d.now();
    let expired = 0;
    for (const key of this.d.pending.keys()) if (liveAt(this.d.cache.peek(key), now) === false) expired++;
    return { streams: this.d.counts.total((key) => this.expired(key), now) - expired, buckets: this.d.counts.buckets };
  }

  /** Live streams in the bucket whose ID starts with `prefix`. */
  inBucket(bucket: string, prefix: string): Count {
    return this.d.counts.inBucket(bucket, prefix, (key) => this.expired(key), this.d.now(), this.notDurable(bucket, prefix));
  }

  /**
   * Whether a stream whose stored deadline has passed has expired for readers (reclaiming it if
   * so). One with a write not yet durable is left to `notDurable`, which counts it from both sides.
   */
  private expired(key: string): boolean {
    if (this.d.pending.has(key)) return false;
    if (liveAt(this.d.cache.get(key), this.d.now()) !== false) return false;
    this.d.reap(key);
    return true;
  }

  /**
   * What the writes committed but not yet durable changed in the bucket among IDs starting with
   * `prefix`: the streams they made live less those they removed, live meaning not expired too.
   * The stored counts hold them already; readers must not see them yet.
   */
  private notDurable(bucket: string, prefix: string): number {
    const now = this.d.now();
    const start = streamKey(bucket, prefix);
    let n = 0;
    for (const [key, committed] of this.d.pending) {
      if (!key.startsWith(start)) continue;
      n += (committed && !committed.softDeleted ? 1 : 0) - (liveAt(this.d.cache.peek(key), now) === true ? 1 : 0);
    }
    return n;
  }
}

/** Whether a state is a live stream (true), an expired one not yet reclaimed (false), or neither (null). */
function liveAt(state: StreamState | null | undefined, nowMs: number): boolean | null {
  if (!state || state.softDeleted) return null;
  return !isExpired(state, nowMs);
}
