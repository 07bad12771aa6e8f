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
 * Whether one more stream (or, with `streams` null, one more empty bucket) fits. The counts are
 * asked for only when a cap is set, and only up to the cap, so an uncapped server counts nothing.
 */
export function quotaRefusal(
  quotas: Quotas,
  bucketExists: boolean,
  countBuckets: (upTo: number) => number,
  countStreams: ((upTo: number) => number) | null,
): ProtocolError | null {
  if (!bucketExists && quotas.maxBuckets !== Infinity && countBuckets(quotas.maxBuckets) >= quotas.maxBuckets) {
    return protocolError("QUOTA_EXCEEDED", `this server holds at most ${quotas.maxBuckets} buckets`);
  }
  if (countStreams !== null && quotas.maxStreamsPerBucket !== Infinity && countStreams(quotas.maxStreamsPerBucket) >= quotas.maxStreamsPerBucket) {
    return protocolError("QUOTA_EXCEEDED", `a bucket holds at most ${quotas.maxStreamsPerBucket} streams`);
  }
  return null;
}
