// Space that nothing refers to any longer is reclaimed here, off the request path: messages no
// reader can reach (below a stream's retained floor, spec §7.2, and not read through by a fork,
// §7.4), every message of a deleted stream, snapshot blobs no stream refers to (spec §7.3), and
// attribute rows that were replaced. Nothing is deleted before the change that orphaned it is
// durable: until then readers are served the durable state, which may still refer to it.
//
// Each step is one small write through group commit (at most ~16 MiB freed), so a retention call
// that drops 900 MiB never stalls the server: the call itself only moves the floor, which already
// refuses reads below it, and the rows go step by step behind it. A pinned blob (one a response is
// still streaming out) waits until its last reader lets go.
//
// Freed pages go to SQLite's freelist, where later writes reuse them. On a database created with
// auto_vacuum = INCREMENTAL, once a large deletion is done, bounded incremental_vacuum steps also
// give the file space back to the filesystem, keeping some free pages for the writes to come.

import type { Database, Statement } from "bun:sqlite";
import type { Pins } from "./pins";
import { COLLECT_STEP_BYTES } from "./snapshot-blobs";

/** One unit of reclaiming, run inside a transaction: "more" to be run again, "done", or "wait" for an unpin. */
export type StepResult = "more" | "done" | "wait";

export interface ReclaimTarget<Tx> {
  submit<T>(run: (tx: Tx) => T): Promise<T>;
  /** Deletes a bounded batch of a stream's messages no reader reaches; how many bytes, and whether more remain. */
  floorStep(tx: Tx, streamId: number, key: string): { freed: number; more: boolean };
  /** Deletes a bounded batch of a deleted stream's messages. */
  dropStep(tx: Tx, streamId: number): { freed: number; more: boolean };
  /** One bounded step of collecting a blob; true once it is gone. */
  blobStep(blobId: number): boolean;
  deleteAttrs(id: number): void;
}

/** Vacuum once this much has been freed, down to KEEP_FREE_BYTES of free pages. */
const VACUUM_AFTER_BYTES = 64 * 1024 * 1024;
const KEEP_FREE_BYTES = 16 * 1024 * 1024;
/**
 * Pages one incremental_vacuum step gives back. A page still in use near the end of the file is
 * moved to a free one first, which is slow; a step holds the writer, so it stays small
 * (docs/design/reclaimer.md).
 */
const VACUUM_STEP_PAGES = 128;

/** `again`: the floor rose while a step was already running, which may have read the floor before it. */
type FloorTask = { kind: "floor"; streamId: number; key: string; again: boolean };
type Task = FloorTask | { kind: "drop"; streamId: number } | { kind: "blob"; blobId: number } | { kind: "attrs"; id: number } | { kind: "vacuum" };

export class Reclaimer<Tx> {
  private readonly queue: Task[] = [];
  private readonly floors = new Map<number, FloorTask>();
  private readonly waiting = new Map<number, Task>();
  private running = false;
  private stopped = false;
  private freedSinceVacuum = 0;
  private readonly incremental: boolean;
  private readonly freelist: Statement<{ freelist_count: number }>;
  private readonly pageSize: number;
  private readonly db: Database;
  private idle: (() => void)[] = [];

  constructor(
    db: Database,
    private readonly target: ReclaimTarget<Tx>,
    private readonly pins: Pins,
  ) {
    this.incremental = db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()!.auto_vacuum === 2;
    this.freelist = db.prepare("PRAGMA freelist_count");
    this.pageSize = db.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
    this.db = db;
    pins.onRelease((id) => {
      const task = this.waiting.get(id);
      if (!task) return;
      this.waiting.delete(id);
      this.push(task);
    });
  }

  /** Messages of stream `streamId` below its floor, whatever the floor is when each step runs. */
  floor(streamId: number, key: string): void {
    const queued = this.floors.get(streamId);
    if (queued) {
      queued.again = true;
      return;
    }
    const task: FloorTask = { kind: "floor", streamId, key, again: false };
    this.floors.set(streamId, task);
    this.push(task);
  }

  /** Every message of a deleted stream. */
  drop(streamId: number): void {
    this.push({ kind: "drop", streamId });
  }

  blob(blobId: number): void {
    this.push({ kind: "blob", blobId });
  }

  attrs(id: number): void {
    this.push({ kind: "attrs", id });
  }

  /** Tasks queued or running; blobs waiting for their last reader to let go are not counted. */
  get pending(): number {
    return this.queue.length;
  }

  /** Resolves once nothing is queued or running (tests, and close()). Pinned blobs are not waited for. */
  settled(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    for (const done of this.idle.splice(0)) done();
  }

  private push(task: Task): void {
    if (this.stopped) return;
    this.queue.push(task);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.run());
    }
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0 && !this.stopped) {
      const task = this.queue[0]!;
      let result: StepResult;
      try {
        result = await this.target.submit((tx) => this.step(tx, task));
      } catch {
        // A failed step (a full disk) changed nothing; try again after a pause.
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (result === "more") continue;
      // A floor that rose during the step: its rows are looked at once more, at the new floor.
      if (task.kind === "floor" && task.again) {
        task.again = false;
        continue;
      }
      this.queue.shift();
      if (task.kind === "floor") this.floors.delete(task.streamId);
      if (result === "wait" && task.kind === "blob") this.waiting.set(task.blobId, task);
    }
    this.running = false;
    for (const done of this.idle.splice(0)) done();
  }

  private step(tx: Tx, task: Task): StepResult {
    switch (task.kind) {
      case "floor": {
        const { freed, more } = this.target.floorStep(tx, task.streamId, task.key);
        this.freed(freed);
        return more ? "more" : "done";
      }
      case "drop": {
        const { freed, more } = this.target.dropStep(tx, task.streamId);
        this.freed(freed);
        return more ? "more" : "done";
      }
      case "blob":
        if (this.pins.has(task.blobId)) return "wait";
        if (!this.target.blobStep(task.blobId)) {
          this.freed(COLLECT_STEP_BYTES);
          return "more";
        }
        return "done";
      case "attrs":
        this.target.deleteAttrs(task.id);
        return "done";
      case "vacuum": {
        const keep = Math.ceil(KEEP_FREE_BYTES / this.pageSize);
        const free = this.freelist.get()!.freelist_count;
        if (free <= keep) return "done";
        // A pragma takes no bound parameters; the count is an integer computed here.
        this.db.query(`PRAGMA incremental_vacuum(${Math.min(VACUUM_STEP_PAGES, free - keep)})`).all();
        return free - keep > VACUUM_STEP_PAGES ? "more" : "done";
      }
    }
  }

  /** Pages freed outside the reclaimer's own steps (rows emptied into segment files) count toward the next vacuum. */
  freedElsewhere(bytes: number): void {
    this.freed(bytes);
  }

  private freed(bytes: number): void {
    if (!this.incremental) return;
    this.freedSinceVacuum += bytes;
    if (this.freedSinceVacuum < VACUUM_AFTER_BYTES) return;
    this.freedSinceVacuum = 0;
    if (!this.queue.some((t) => t.kind === "vacuum")) this.queue.push({ kind: "vacuum" });
  }
}
