// Whether the store can write, as its writes last found out: what /__ursula/ready reports. A write
// the disk refused marks the store unready until a client's write, or the probe, succeeds again.

export type WriteState = "ok" | "full" | "read-only" | "io-error" | "closing";

export type DiskFailure = Exclude<WriteState, "ok" | "closing">;

/** The state a failed write leaves the store in, or null for a failure that says nothing about the disk. */
export function stateAfterFailure(error: unknown): DiskFailure | null {
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

export class WriteHealth {
  private current: WriteState = "ok";
  private lastProbeAt = -Infinity;
  private probing: Promise<WriteState> | undefined;

  get state(): WriteState {
    return this.current;
  }

  /** A client's write (or the probe) committed: the disk takes writes. */
  succeeded(): void {
    if (this.current !== "closing") this.current = "ok";
  }

  failed(error: unknown): void {
    const state = stateAfterFailure(error);
    if (state !== null && this.current !== "closing") this.current = state;
  }

  closing(): void {
    this.current = "closing";
  }

  /**
   * While writes fail, runs `write` (at most once per PROBE_EVERY_MS) to learn whether they work
   * again; resolves with the state it leaves.
   */
  probe(write: () => Promise<unknown>): Promise<WriteState> {
    if (this.current === "ok" || this.current === "closing") return Promise.resolve(this.current);
    if (this.probing) return this.probing;
    if (performance.now() - this.lastProbeAt < PROBE_EVERY_MS) return Promise.resolve(this.current);
    this.lastProbeAt = performance.now();
    this.probing = write()
      .then(
        () => this.current,
        () => this.current,
      )
      .finally(() => (this.probing = undefined));
    return this.probing;
  }
}
