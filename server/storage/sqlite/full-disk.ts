// What the store does about a full disk: at start-up, when a write first finds no room, and every
// second after, until writes that add data can resume.
//
// Writes that add data resume once the reserve (disk-reserve.ts) is held again and HEADROOM is
// free beside it, not as soon as a byte is free: a server let back in at the last byte would be
// full again at once, with no reserve. Space a delete or a retention step frees goes to the
// database's free pages; on a database with incremental vacuum (every database ursa creates) it
// is given back to the file system in bounded steps while the store is full, all of it before
// writes resume, and so becomes room.
// A database without it (made by an ursa before 0.1) keeps its free pages for later writes, but a
// full store waits for room on the file system itself. The WAL is room too: SQLite reuses its
// space once every frame is copied but keeps the file at its largest (up to journal_size_limit,
// 64 MiB), so a full store empties it (docs/design/full-disk.md).

import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { freeBytes, headroom, startRoom, type DiskReserve } from "./disk-reserve";
import { BUSY_TIMEOUT_MS } from "./open-database";
import type { StoreLog } from "../store-log";
import type { WriteHealth } from "../write-health";

export type SpaceAction = "resume" | "fill" | "vacuum" | "truncate" | "wait";

export interface SpaceNow {
  /** Free bytes on the file system, or null where the platform cannot tell. */
  free: number | null;
  /** Bytes of free pages inside the database file: room once vacuumed. */
  freelist: number;
  reserveBytes: number;
  /** Bytes the reserve lacks of its size. */
  reserveMissing: number;
  /** Whether free pages can be given back to the file system (auto_vacuum = INCREMENTAL). */
  canVacuum: boolean;
  /** Bytes of the WAL file: room once its frames are copied and it is truncated. */
  walBytes: number;
}

/**
 * The next thing a full store does about space, as it is now. Only the file system's free space
 * counts as room: a write goes to the WAL first, which grows into free space on the file system,
 * not into free pages of the database file. So every free page is given back (vacuum) before
 * writes resume, not only enough of them for the headroom: CI saw a store resume with 2 of the
 * 20 MiB a retention step freed given back, and refuse the third 1 MiB write after it.
 */
export function nextAction(s: SpaceNow): SpaceAction {
  if (s.canVacuum && s.freelist > 0 && s.free !== null) return "vacuum";
  return roomAction(s) ?? (s.walBytes > 0 ? "truncate" : "wait");
}

/** Whether the file system has room for writes: to take the reserve back first, or to resume. */
export function roomAction(s: SpaceNow): "fill" | "resume" | undefined {
  // A platform that cannot say how much is free: a probe write decides, as without a reserve.
  if (s.free === null) return "resume";
  if (s.free >= s.reserveMissing + headroom(s.reserveBytes)) return s.reserveMissing > 0 ? "fill" : "resume";
  return undefined;
}

export interface FullDiskDeps {
  dbPath: string;
  reserve: DiskReserve;
  health: WriteHealth;
  log: StoreLog;
  freelistBytes(): number;
  canVacuum: boolean;
  /**
   * One bounded step of giving free pages back to the file system, checkpointed at once: the
   * pages it moves go through the WAL, which must be emptied again before the next step, or on
   * a full disk the WAL would grow into the very space being freed.
   */
  vacuumStep(): Promise<unknown>;
  /** A write that needs as much room as an ordinary append, taken back at once. */
  probe(): Promise<unknown>;
  /** Bytes of the WAL file now. */
  walBytes(): number;
  /**
   * Copies the WAL's frames into the database and truncates it, if no reader holds it; never
   * waits. A failure (busy, or no room to grow the database) is left to the next attempt.
   */
  truncateWal(): void;
}

/** Pages one vacuum step gives back: as reclaimer.ts sizes its steps, to hold the writer tens of ms at most. */
export const VACUUM_STEP_PAGES = 128;

/** Steps of one attempt at most: 256 vacuum steps of 128 pages give back 128 MiB. */
const MAX_STEPS = 256;
const TICK_MS = 1000;

export class FullDisk {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly d: FullDiskDeps) {}

  /**
   * Before SQLite opens the files: with less than HEADROOM free, the reserve is given up at once,
   * so that opening (the shared-memory file, a migration, replay) cannot fail for want of room.
   */
  static beforeOpen(reserve: DiskReserve): void {
    const free = freeBytes(reserve.path);
    if (free !== null && free < headroom(reserve.bytes) && reserve.held() > 0) reserve.release();
  }

  /** Once the database is open: holds the reserve if there is room, else starts the store full. */
  start(): void {
    this.d.reserve.ensure();
    for (;;) {
      const action = roomAction(this.space());
      if (action === "fill" && this.d.reserve.fill()) continue;
      if (action === "resume") break;
      this.d.log(
        "warn",
        "storage is full at start: writes that add data get 507 STORAGE_FULL until there is room for the disk reserve (--disk-reserve-mb) and a quarter of it besides; reads, deletes and retention work",
        this.fields(),
      );
      this.d.health.becomeFull();
      break;
    }
    this.watch();
  }

  /** The health became full (watchSpace): a write found no room. */
  entered(): void {
    const released = this.d.reserve.release(startRoom(this.d.reserve.bytes));
    this.d.log("warn", "storage is full: writes that add data get 507 STORAGE_FULL until there is room; reads, deletes and retention work", {
      reserve_released_bytes: released,
      ...this.fields(),
    });
    this.watch();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * One attempt at getting writes going again: give free pages back, hold the reserve, probe.
   * Run through WriteHealth.probe, so at most one at a time and one a second.
   */
  async attempt(): Promise<void> {
    let truncated = false;
    for (let step = 0; step < MAX_STEPS; step++) {
      const space = this.space();
      const action = nextAction(space);
      if (step === 0 || action !== "vacuum") this.d.log("debug", `full disk: ${action}`, { step, free_bytes: space.free ?? undefined, free_pages_bytes: space.freelist, reserve_missing_bytes: space.reserveMissing, wal_bytes: space.walBytes });
      if (action === "wait") return;
      if (action === "truncate") {
        // Once an attempt: a WAL a reader holds stays until the next one.
        if (truncated) return;
        truncated = true;
        this.d.truncateWal();
        continue;
      }
      if (action === "fill") {
        if (!this.d.reserve.fill()) return;
        continue;
      }
      if (action === "vacuum") {
        await this.d.vacuumStep();
        continue;
      }
      await this.d.probe();
      this.d.health.recovered();
      this.d.log("info", "storage has room again: writes resume", this.fields());
      return;
    }
  }

  /** While full, an attempt every second (WriteHealth.probe keeps it to one at a time). */
  private watch(): void {
    if (this.timer !== undefined || this.d.health.state !== "full") return;
    this.timer = setInterval(() => {
      if (this.d.health.state === "full") void this.d.health.probe(() => this.attempt().catch((error: unknown) => this.d.log("debug", "full disk: attempt failed", { error: (error as Error).message })));
      else this.stop();
    }, TICK_MS);
    this.timer.unref();
  }

  private space(): SpaceNow {
    return {
      free: freeBytes(this.d.dbPath),
      freelist: this.d.freelistBytes(),
      reserveBytes: this.d.reserve.bytes,
      reserveMissing: this.d.reserve.missing(),
      canVacuum: this.d.canVacuum,
      walBytes: this.d.walBytes(),
    };
  }

  private fields() {
    const s = this.space();
    return { free_bytes: s.free ?? undefined, free_pages_bytes: s.freelist, reserve_bytes: this.d.reserve.held() };
  }
}

/** The store's FullDisk, on its database and writer: started at once (full-disk.ts start()). */
export function watchSpace(o: {
  db: Database;
  dbPath: string;
  reserve: DiskReserve;
  health: WriteHealth;
  log: StoreLog;
  /** A write through group commit. */
  submit: (run: () => unknown) => Promise<unknown>;
  probe(): Promise<unknown>;
}): FullDisk {
  const { db } = o;
  const fullDisk = new FullDisk({
    dbPath: o.dbPath,
    reserve: o.reserve,
    health: o.health,
    log: o.log,
    freelistBytes: () => db.query<{ n: number }, []>("SELECT freelist_count * page_size AS n FROM pragma_freelist_count(), pragma_page_size()").get()!.n,
    canVacuum: db.query<{ auto_vacuum: number }, []>("PRAGMA auto_vacuum").get()!.auto_vacuum === 2,
    vacuumStep: async () => {
      await o.submit(() => db.query(`PRAGMA incremental_vacuum(${VACUUM_STEP_PAGES})`).all());
      // PASSIVE never waits: if the checkpoint thread is at it, that one does the work.
      db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    },
    probe: o.probe,
    walBytes: () => statSync(`${o.dbPath}-wal`, { throwIfNoEntry: false })?.size ?? 0,
    truncateWal: () => {
      // No busy wait: the checkpoint thread or a reader at work means another try in a second,
      // not an event loop held for the busy timeout.
      db.exec("PRAGMA busy_timeout = 0");
      try {
        db.query("PRAGMA wal_checkpoint(TRUNCATE)").get();
      } catch (error) {
        o.log("debug", "full disk: WAL truncation failed", { error: (error as Error).message });
      } finally {
        db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
    },
  });
  o.health.whenFull(() => fullDisk.entered());
  fullDisk.start();
  return fullDisk;
}
