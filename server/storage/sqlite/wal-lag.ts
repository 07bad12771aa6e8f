// How far the database file may fall behind the WAL on a nearly full disk before writes wait for
// the checkpoint thread.
//
// A WAL page the checkpoint has not yet copied may be a page the database file must still grow
// by, and SQLite writes at the start of the WAL again only once every frame is copied. So on a
// full disk a checkpoint needs room for all it has left to copy: if that is more than the disk
// reserve gave back (disk-reserve.ts), the checkpoint never finishes, the WAL is never reused,
// and not even a delete or an incremental vacuum can write. CI met it: 12 MB of free pages in
// the database, behind a WAL of 32.8 MB the checkpoint could not finish copying, and the server
// full for good. Checkpoints run every 100 ms, and on a fast disk 100 ms of appends is tens of
// megabytes, so on a disk with little room left, writes wait for the checkpoint once the lag
// reaches half of what the reserve gives back.

import { freeBytes, startRoom, type DiskReserve } from "./disk-reserve";

export interface WalLagLimits {
  /** A lag of this many bytes asks for a checkpoint at once, without waiting for the tick. */
  askAt: number;
  /** At this lag, on a disk low on space, writes wait until the checkpoint has answered. */
  holdAt: number;
  /** A disk with fewer free bytes than this is low on space. */
  lowBelow: number;
}

/** The limits for a disk reserve of `reserveBytes`; none without a reserve, which promises nothing on a full disk. */
export function walLagLimits(reserveBytes: number): WalLagLimits | null {
  const givenBack = reserveBytes - startRoom(reserveBytes);
  if (givenBack <= 0) return null;
  // Half: the lag is an estimate (a transaction's data and a page besides) until the checkpoint
  // says how many frames it left, and the transaction that crosses the line adds its own.
  const holdAt = Math.floor(givenBack / 2);
  // Free space is looked at once per askAt bytes written, and a checkpoint can take as much again
  // as the writes did: twice the reserve is low while a look is still early.
  return { askAt: Math.floor(holdAt / 2), holdAt, lowBelow: 2 * reserveBytes };
}

/**
 * The lag itself: bytes committed to the WAL that the checkpoint may not have copied, as the
 * writer counts them, corrected by each checkpoint's own count of the frames it left.
 */
export class WalLag {
  private bytes = 0;
  private atAsk = 0;
  private sinceLook = 0;
  private low = false;

  constructor(
    readonly limits: WalLagLimits,
    /** Free bytes on the database's file system, or null where the platform cannot say. */
    private readonly free: () => number | null,
  ) {}

  get behind(): number {
    return this.bytes;
  }

  committed(walBytes: number): void {
    this.bytes += walBytes;
    this.sinceLook += walBytes;
    if (this.sinceLook >= this.limits.askAt) {
      this.sinceLook = 0;
      const free = this.free();
      this.low = free !== null && free < this.limits.lowBelow;
    }
  }

  /** Whether a checkpoint should be asked for now rather than at the next tick. */
  askNow(): boolean {
    return this.low && this.bytes >= this.limits.askAt;
  }

  /** Whether writes must wait for the checkpoint asked for. */
  mustHold(): boolean {
    return this.low && this.bytes >= this.limits.holdAt;
  }

  asked(): void {
    this.atAsk = this.bytes;
  }

  /**
   * The checkpoint asked for has answered: what was committed before it is copied but for
   * `leftBytes` (the frames it could not copy), or none of it if it failed (null).
   */
  answered(leftBytes: number | null): void {
    if (leftBytes !== null) this.bytes = this.bytes - this.atAsk + leftBytes;
    this.atAsk = 0;
  }
}

/** The lag of a store with this reserve, on the file system of `dbPath`; none without a reserve. */
export function walLagOf(reserve: DiskReserve, dbPath: string): WalLag | undefined {
  const limits = walLagLimits(reserve.bytes);
  return limits ? new WalLag(limits, () => freeBytes(dbPath)) : undefined;
}

/**
 * A transaction's WAL bytes, as the writer estimates them: the data it appended, and a few pages
 * besides (stream rows, index pages). The checkpoint's answer corrects what this misses.
 */
export const walBytesOf = (dataBytes: number): number => dataBytes + 4 * 4120;
