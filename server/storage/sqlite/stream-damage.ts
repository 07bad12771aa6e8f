// Streams whose pages failed on read (SQLITE_CORRUPT): a damaged page in the database file, or a
// segment file that is missing or short (segment-files.ts). The
// read answers 500 STORAGE_CORRUPT, for that stream only, and every write to the stream is refused
// from then on, since writing next to damaged pages can spread the damage; other streams go on
// being read and written. Each damaged stream is logged once a minute at most, not per request,
// and the failures are counted for the metrics.

import type { StreamState } from "../../protocol/state";
import { SegmentDamage } from "./segment-files";
import type { StoreLog } from "../store-log";
import { failureOf, StorageFault } from "../write-health";

const LOG_EVERY_MS = 60_000;

interface Damaged {
  key: string;
  loggedAt: number;
  notLogged: number;
}

export class StreamDamage {
  private readonly streams = new Map<number, Damaged>();
  /** Reads that met a damaged page, counted from the start. */
  errors = 0;

  constructor(private readonly log: StoreLog) {}

  /** Streams found damaged so far. */
  get count(): number {
    return this.streams.size;
  }

  /**
   * What a failed read of the stream's stored data should throw: a damaged page marks the stream
   * and becomes a StorageFault for it; anything else is thrown as it is.
   */
  readFailed(state: StreamState, error: unknown): unknown {
    if (error instanceof SegmentDamage) return this.found(state, error);
    if (failureOf(error) !== "corrupt" || error instanceof StorageFault) return error;
    return this.found(state, error as Error);
  }

  /** Throws if the stream is known to be damaged. */
  refuseWrites(state: StreamState): void {
    const damaged = this.streams.get(state.id);
    if (damaged) throw new StorageFault("corrupt", `stream ${damaged.key} is stored on damaged database pages; it takes no writes until the database is repaired`);
  }

  private found(state: StreamState, error: Error): StorageFault {
    this.errors++;
    const key = `${state.bucket}/${state.name}`;
    const now = performance.now();
    let damaged = this.streams.get(state.id);
    if (!damaged) this.streams.set(state.id, (damaged = { key, loggedAt: -Infinity, notLogged: 0 }));
    if (now - damaged.loggedAt >= LOG_EVERY_MS) {
      this.log("error", "a damaged database page failed on read: this stream's reads of it answer 500 STORAGE_CORRUPT and its writes are refused; other streams are unaffected. Stop ursa and repair or restore the database (docs/operations.md)", {
        stream: key,
        error: error.message,
        similar_not_logged: damaged.notLogged || undefined,
      });
      damaged.loggedAt = now;
      damaged.notLogged = 0;
    } else damaged.notLogged++;
    return new StorageFault("corrupt", `stream ${key} is stored on damaged database pages; this read cannot be served`);
  }
}
