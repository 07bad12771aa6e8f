// Whether the store can write, as its writes last found out: what /__ursula/ready reports.
//
// - full: a write found no room (or start-up found none). The disk reserve is given up
//   (disk-reserve.ts) and writes that would add data are refused up front, so what the reserve
//   gave back stays for the writes that free space (deletes, retention) and the store's upkeep.
//   It ends only when full-disk.ts finds room again, not when some write happens to succeed.
// - read-only, io-error: the disk refused a write; the next one that succeeds (a client's, or the
//   probe) ends it.
// - unavailable: the PostgreSQL engine cannot reach its database; it reconnects by itself, and
//   the next statement that succeeds ends it.
// - corrupt: the database failed its integrity check, or a write met a damaged page. Every write
//   is refused from then on, so that none can spread the damage (a damaged free-page list can
//   hand a page still in use to a new row), until an operator has repaired the file.

export type WriteState = "ok" | "full" | "read-only" | "io-error" | "corrupt" | "unavailable" | "closing";

export type DiskFailure = Exclude<WriteState, "ok" | "closing">;

/** A request the store refused before writing anything, or a read it attributed to a damaged stream. */
export class StorageFault extends Error {
  constructor(
    readonly reason: "full" | "corrupt",
    message: string,
  ) {
    super(message);
  }
}

/** What a failed write or read says about the disk, or null for a failure that says nothing about it. */
export function failureOf(error: unknown): DiskFailure | null {
  if (error instanceof StorageFault) return error.reason;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  // SQLite reports a write the disk refused with ENOSPC, like one past max_page_count, as SQLITE_FULL.
  if (code === "SQLITE_FULL") return "full";
  // A snapshot file's write (snapshot-files.ts) reports the system's own codes.
  if (code === "ENOSPC" || code === "EDQUOT") return "full";
  if (code === "EROFS") return "read-only";
  if (code === "EIO") return "io-error";
  if (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB") return "corrupt";
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
  /** What was found wrong, for the log: the integrity check's first problem, a write's error. */
  damage: string | undefined;

  private readonly fullListeners: (() => void)[] = [];

  /** Called once each time the store becomes full. */
  whenFull(listener: () => void): void {
    this.fullListeners.push(listener);
  }

  get state(): WriteState {
    return this.current;
  }

  /** Throws unless a write that adds data may run now. */
  admitGrowth(): void {
    if (this.current === "full") throw new StorageFault("full", "the server's storage is full; nothing of this request was written");
    this.admitAny();
  }

  /** Throws if no write may run at all (a damaged database). */
  admitAny(): void {
    if (this.current === "corrupt") throw new StorageFault("corrupt", "the server's database is damaged and takes no writes until it is repaired; nothing of this request was written");
  }

  /** A client's write (or the probe) committed: a read-only or failing disk takes writes again. */
  succeeded(): void {
    if (this.current === "read-only" || this.current === "io-error") this.current = "ok";
  }

  failed(error: unknown): void {
    // A refusal, or a damaged stream's, says nothing new about the disk.
    if (error instanceof StorageFault) return;
    const failure = failureOf(error);
    if (failure === null || this.current === "closing" || this.current === "corrupt") return;
    if (failure === "corrupt") return this.damaged((error as Error).message);
    if (failure === "full") return this.becomeFull();
    if (this.current !== "full") this.current = failure;
  }

  becomeFull(): void {
    if (this.current === "full" || this.current === "corrupt" || this.current === "closing") return;
    this.current = "full";
    for (const listener of this.fullListeners) listener();
  }

  /** full-disk.ts found room (and took the reserve back): writes that add data resume. */
  recovered(): void {
    if (this.current === "full") this.current = "ok";
  }

  damaged(detail: string): void {
    if (this.current === "closing" || this.current === "corrupt") return;
    this.current = "corrupt";
    this.damage = detail;
  }

  closing(): void {
    this.current = "closing";
  }

  /**
   * While writes fail for want of room or a disk that refuses them, runs `attempt` (at most once
   * per PROBE_EVERY_MS) to learn whether they work again; resolves with the state it leaves.
   */
  probe(attempt: () => Promise<unknown>): Promise<WriteState> {
    if (this.current === "ok" || this.current === "closing" || this.current === "corrupt") return Promise.resolve(this.current);
    if (this.probing) return this.probing;
    if (performance.now() - this.lastProbeAt < PROBE_EVERY_MS) return Promise.resolve(this.current);
    this.lastProbeAt = performance.now();
    this.probing = attempt()
      .then(
        () => this.current,
        () => this.current,
      )
      .finally(() => (this.probing = undefined));
    return this.probing;
  }
}
