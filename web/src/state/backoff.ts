// Reconnect delays for the live tail. Exponential with a cap and jitter, and a give-up
// point: Redpanda Console's comment on its own loop explains why — restarting at
// round-trip speed "hides the error behind a fast reset loop and drives a request storm".

export interface BackoffPolicy {
  baseMs: number;
  maxMs: number;
  /** After this many failed attempts in a row the tail stops and says so. */
  maxAttempts: number;
  /** ±fraction of jitter, so many consoles do not reconnect in lockstep. */
  jitter: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 500, maxMs: 30_000, maxAttempts: 8, jitter: 0.2 };

/** Delay before reconnect attempt `attempt` (1-based). `random` is injectable for tests. */
export function backoffDelay(attempt: number, policy: BackoffPolicy = DEFAULT_BACKOFF, random: () => number = Math.random): number {
  const raw = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const spread = raw * policy.jitter * (random() * 2 - 1);
  return Math.max(0, Math.round(Math.min(policy.maxMs, raw + spread)));
}
