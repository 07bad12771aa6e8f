// When the checkpoint thread (checkpointer.ts) runs, and why the writer holds still meanwhile.
//
// SQLite writes a transaction's frames at the start of the WAL again ("restarts" it) only when the
// transaction begins after a checkpoint has copied every frame into the database file. A
// checkpoint running beside a busy writer never gets there: a commit always adds a frame before
// it ends. Then the WAL only grows, until the writer's own safety-net checkpoint at 64 MiB, and a
// sync of frames appended to a growing file must also write its size and block map: two device
// writes instead of one, and fewer syncs a second (measured in bench/PROFILE-20.md). So each checkpoint holds new transactions back until it is done (a millisecond or so, every
// 100 ms; writes meanwhile queue and then share one transaction), and the next one restarts the WAL.

import type { CheckpointDone, CheckpointerClose, CheckpointerClosed, CheckpointerMessage, CheckpointerStart, CheckpointRequest } from "./checkpointer";
import { ThreadClose } from "./thread-close";
import type { WriteHealth } from "../write-health";
import type { Batch } from "./batch";
import type { DiskReserve } from "./disk-reserve";
import type { GroupCommit } from "./group-commit";
import { WAL_SIZE_LIMIT } from "./open-database";
import type { SqliteStoreOptions } from "./sqlite-store-options";
import { walLagOf, type WalLag } from "./wal-lag";

export const CHECKPOINT_EVERY_MS = 100;

/**
 * The longest writes are held for one checkpoint: past it they go on, and that checkpoint only
 * copies frames (the WAL goes on growing until one finishes in time).
 */
export const MAX_HOLD_MS = 10;

export class Checkpoints {
  private readonly worker: Worker;
  private readonly timer: ReturnType<typeof setInterval>;
  private lastId = 0;
  /**
   * The checkpoint asked for and not yet answered, if any: never more than one at a time.
   * `settled` resolves with its answer, whether or not a hold gave up on it sooner.
   */
  private waiting: { id: number; answered: () => void; settled: Promise<void>; heldForLag: boolean } | null = null;
  private committedSince = false;
  /** Whether the last checkpoint asked for had writes before it. */
  private wroteBefore = false;
  /**
   * Whether the last checkpoint finished within MAX_HOLD_MS. One that did not was copying a
   * backlog (a burst's WAL), and so will the next: no hold lets it finish with no transaction in
   * between, so holding writes for it would only make each write that arrives meanwhile wait up to
   * MAX_HOLD_MS (a fork PUT just after a 1 GiB fill). The first quick one holds again.
   */
  private quick = true;
  private askedAt = 0;

  /**
   * @param hold starts no transaction until the promise settles (GroupCommit.hold)
   * @param report what the thread says about its own trouble
   * @param lag how far the database file is behind the WAL, where a disk reserve bounds it (wal-lag.ts)
   */
  constructor(
    url: URL,
    path: string,
    walLimitBytes: number,
    private readonly hold: (until: Promise<void>) => void,
    report: (message: CheckpointerMessage) => void,
    everyMs = CHECKPOINT_EVERY_MS,
    private readonly lag?: WalLag,
  ) {
    this.worker = new Worker(url);
    this.worker.onmessage = (event: MessageEvent<CheckpointerMessage | CheckpointDone | CheckpointerClosed>) => {
      const m = event.data;
      if ("closed" in m) this.closing.closed();
      else if (!("done" in m)) report(m);
      else if (this.waiting?.id === m.done) this.answered(m.leftBytes);
    };
    this.worker.postMessage({ path, walLimitBytes } satisfies CheckpointerStart);
    this.timer = setInterval(() => this.tick(), everyMs);
    this.timer.unref();
  }

  /** A transaction of about `walBytes` committed: the next tick has frames to copy. */
  committed(walBytes = 0): void {
    this.committedSince = true;
    if (this.lag === undefined) return;
    this.lag.committed(walBytes);
    if (this.waiting === null && this.lag.askNow()) this.tick();
    const w = this.waiting;
    if (w !== null && !w.heldForLag && this.lag.mustHold()) {
      w.heldForLag = true;
      this.hold(w.settled);
    }
  }

  private tick(): void {
    if (this.waiting !== null) return;
    const writes = this.committedSince;
    // One more checkpoint after the writes stop: the one that finds nothing new may truncate a WAL
    // a burst left over its limit (checkpointer.ts). Nothing to hold back for it.
    if (!writes && !this.wroteBefore) return;
    this.wroteBefore = writes;
    this.committedSince = false;
    const id = ++this.lastId;
    const hold = writes && this.quick;
    let answered = () => {};
    const settled = new Promise<void>((resolve) => (answered = resolve));
    this.waiting = { id, answered, settled, heldForLag: false };
    this.askedAt = performance.now();
    this.lag?.asked();
    this.worker.postMessage({ checkpoint: id } satisfies CheckpointRequest);
    if (hold) this.hold(Promise.race([settled, new Promise<void>((resolve) => setTimeout(resolve, MAX_HOLD_MS).unref())]));
  }

  private answered(leftBytes: number | null): void {
    const w = this.waiting!;
    this.waiting = null;
    this.lag?.answered(leftBytes);
    this.quick = performance.now() - this.askedAt <= MAX_HOLD_MS;
    w.answered();
  }

  private readonly closing = new ThreadClose();

  /** Lets the thread close its connection (checkpointer.ts CheckpointerClose), then ends it. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.waiting) this.answered(null);
    await this.closing.end(this.worker, { close: true } satisfies CheckpointerClose);
  }
}

/** The checkpoint thread (checkpoints.ts), which holds new transactions back while it must. */
export function startCheckpoints(options: SqliteStoreOptions, reserve: DiskReserve | undefined, health: WriteHealth, writes: GroupCommit<Batch>): Checkpoints {
  const report = options.onCheckpointMessage ?? ((m: CheckpointerMessage) => console.error(`ursa: ${m.message}${m.error ? `: ${m.error}` : ""}`));
  const url = options.checkpointerUrl ?? new URL("./checkpointer.ts", import.meta.url);
  const onMessage = (m: CheckpointerMessage) => {
    report(m);
    // A checkpoint that cannot grow the database file while writes still fit in the WAL's old
    // space would let the WAL fill with pages that need room the disk lacks: full now.
    if (m.code === "SQLITE_FULL") health.becomeFull();
  };
  return new Checkpoints(url, options.path, WAL_SIZE_LIMIT, (until) => writes.hold(until), onMessage, options.checkpointEveryMs, reserve && walLagOf(reserve, options.path));
}
