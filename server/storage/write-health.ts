// Whether the store can write, as its writes last found out: what /__ursula/ready reports. A write
// the disk refused marks the store unready until a write succeeds again, a client's or the probe's.

export type WriteState = "ok" | "full" | "read-only" | "io-error" | "closing";

/** The state a failed write leaves the store in, or null for a failure that says nothing about the disk. */
export function stateAfterFailure(error: unknown): Exclude<WriteState, "ok" | "closing"> | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  // SQLite reports a write the disk refused with ENOSPC, like one past max_page_count, as SQLITE_FULL.
  if (code === "SQLITE_FULL") return "full";
  if (code.startsWith("SQLITE_READONLY")) return "read-only";
  if (code.startsWith("SQLITE_IOERR") || code.startsWith("SQLITE_CANTOPEN")) return "io-error";
  return null;
}

/** The probe writes this much, then takes it back in the same transaction: room for a typical append. */
export const PROBE_BYTES = 64 * 1024;

/** Probes run at most this often, however often readiness is asked. */
export const PROBE_EVERY_MS = 1000;
