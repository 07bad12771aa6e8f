// Which buckets a request may see. Tenants stay apart only if every answer that can name a stream
// (listings, details, fork families, counts, server figures) asks this one rule, so it lives here
// and nowhere else: a stream in a bucket the request cannot see is, to it, a stream that never
// existed, or at most "a stream you cannot see", with no name, offset or state (docs/security.md).

import type { Principal } from "./principal";

export interface Visibility {
  /** Every bucket, so nothing needs hiding (and server-wide figures may be given as they are). */
  readonly all: boolean;
  sees(bucket: string): boolean;
}

const EVERY_BUCKET: Visibility = { all: true, sees: () => true };

/**
 * What a principal admitted to a read route may see: every bucket when authentication is off, with
 * --public-read (anyone may read them all anyway), or for a token not limited to some buckets;
 * otherwise the buckets its token names.
 */
export function visibilityOf(p: Principal, publicRead: boolean): Visibility {
  if (publicRead || p.buckets === null) return EVERY_BUCKET;
  const buckets = p.buckets;
  return { all: false, sees: (bucket) => buckets.has(bucket) };
}

/** A stream path key (`bucket/stream`) if its bucket is visible, else null. */
export function visibleKey(v: Visibility, key: string): string | null {
  return v.all || v.sees(key.slice(0, key.indexOf("/"))) ? key : null;
}
