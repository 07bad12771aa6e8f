// Whether the database can be reached, as the last statement found: what readiness reports and
// what turns a failed request into 503 DATABASE_UNAVAILABLE. Bun's client reconnects by itself
// on the next query, so recovery needs no action here beyond noticing that a statement succeeded.

import { PROBE_EVERY_MS, type DiskFailure, type WriteState } from "../write-health";

/**
 * SQLSTATE classes and client codes that mean the connection, not the request, failed. 25006 (a
 * write refused as read-only) means the host is a standby now: the primary is elsewhere.
 */
const LOST_STATES = /^(08|57P0[1-3]|53300|25006)/;
const LOST_CODES = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
  "ERR_POSTGRES_NOT_CONNECTED",
]);

export function isConnectionLoss(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown } | null;
  if (typeof e?.code === "string" && LOST_CODES.has(e.code)) return true;
  return typeof e?.errno === "string" && LOST_STATES.test(e.errno);
}

export class Connection {
  private current: "ok" | "unavailable" = "ok";
  private lastProbeAt = -Infinity;
  private probing: Promise<WriteState> | undefined;

  /** `lost` is told of every lost connection (primary.ts looks for the primary). */
  constructor(private readonly lost: () => void = () => undefined) {}

  get state(): WriteState {
    return this.current;
  }

  failureOf(error: unknown): DiskFailure | null {
    if (!isConnectionLoss(error)) return null;
    this.current = "unavailable";
    this.lost();
    return "unavailable";
  }

  failed(error: unknown): void {
    this.failureOf(error);
  }

  succeeded(): void {
    this.current = "ok";
  }

  /**
   * Tries a statement (at most once a second) and resolves with what it found: readiness asks,
   * so a database that went away while no request was made is noticed all the same.
   */
  probe(attempt: () => Promise<void>): Promise<WriteState> {
    if (this.probing) return this.probing;
    const now = performance.now();
    if (now - this.lastProbeAt < PROBE_EVERY_MS) return Promise.resolve(this.current);
    this.lastProbeAt = now;
    this.probing = attempt()
      .then(() => this.succeeded())
      .catch((error: unknown) => this.failed(error))
      .then(() => this.current)
      .finally(() => (this.probing = undefined));
    return this.probing;
  }
}
