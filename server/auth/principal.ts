// Who a request comes from, once its credential (if any) has been checked, and what that lets it do.

import { ALL_SCOPES } from "./scopes";

export interface Principal {
  /** `open`: authentication is off, so every request may do everything. */
  kind: "open" | "anonymous" | "token" | "jwt";
  /** A bit mask of scopes.ts. */
  scopes: number;
  /** The buckets the scopes apply to; null for every bucket. */
  buckets: ReadonlySet<string> | null;
  /**
   * When the credential stops being accepted (a JWT's exp, plus the clock tolerance it is checked
   * with); null for credentials that do not expire. Live reads end by then (http/reads.ts).
   */
  acceptedUntilMs: number | null;
}

export const OPEN: Principal = { kind: "open", scopes: ALL_SCOPES, buckets: null, acceptedUntilMs: null };
export const ANONYMOUS: Principal = { kind: "anonymous", scopes: 0, buckets: null, acceptedUntilMs: null };

export function reachesBucket(p: Principal, bucket: string): boolean {
  return p.buckets === null || p.buckets.has(bucket);
}
