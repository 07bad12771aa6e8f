// Per-server caps on buckets and on streams per bucket (--max-buckets,
// --max-streams-per-bucket). A create past a cap commits nothing and answers 429 QUOTA_EXCEEDED,
// without Retry-After: only a delete makes room.

import { protocolError, type ProtocolError } from "./errors";

export interface Quotas {
  /** Infinity: no cap. */
  maxBuckets: number;
  maxStreamsPerBucket: number;
}

export const NO_QUOTAS: Quotas = { maxBuckets: Infinity, maxStreamsPerBucket: Infinity };

/**
 * What the engine must count, inside the create's transaction, before quotaRefusal decides: the
 * buckets (when the create would make a new one) and the bucket's live streams (when it creates a
 * stream), each only up to its cap. Null: nothing to count, so an uncapped server counts nothing.
 */
export function quotaCounts(quotas: Quotas, bucketExists: boolean, createsStream: boolean): { bucketsUpTo: number | null; streamsUpTo: number | null } {
  return {
    bucketsUpTo: !bucketExists && quotas.maxBuckets !== Infinity ? quotas.maxBuckets : null,
    streamsUpTo: createsStream && quotas.maxStreamsPerBucket !== Infinity ? quotas.maxStreamsPerBucket : null,
  };
}

/** Whether one more stream (or one more empty bucket) fits, given the counts quotaCounts asked for (null where it asked for none). */
export function quotaRefusal(quotas: Quotas, counted: { buckets: number | null; streams: number | null }): ProtocolError | null {
  if (counted.buckets !== null && counted.buckets >= quotas.maxBuckets) {
    return protocolError("QUOTA_EXCEEDED", `this server holds at most ${quotas.maxBuckets} buckets`);
  }
  if (counted.streams !== null && counted.streams >= quotas.maxStreamsPerBucket) {
    return protocolError("QUOTA_EXCEEDED", `a bucket holds at most ${quotas.maxStreamsPerBucket} streams`);
  }
  return null;
}
