// The data directory at start-up: created if missing, checked for write access before SQLite
// touches it, and, if the start fails, cleared of everything this start created (the directory
// itself, an empty database, its WAL and lock files), so a failed start leaves nothing behind.

import { closeSync, existsSync, mkdirSync, openSync, rmSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { DatabaseInUseError } from "./database-lock";
import { RESERVE_SUFFIX } from "./disk-reserve";
import { DatabaseDamagedError } from "./open-database";

const DATABASE = "ursa.sqlite";
/** The files SQLite, the lock (storage/sqlite/database-lock.ts) and the disk reserve create beside the database. */
const COMPANIONS = ["", "-wal", "-shm", "-lock", "-journal", RESERVE_SUFFIX];

export class DataDir {
  readonly databasePath: string;
  /** The first directory this start created, if it created any. */
  private readonly createdDir: string | undefined;
  private readonly existedBefore: Set<string>;

  constructor(readonly dir: string) {
    try {
      this.createdDir = mkdirSync(dir, { recursive: true }) ?? undefined;
    } catch (error) {
      throw new Error(`cannot create the data directory ${dir}: ${explainFsError(error)}`);
    }
    this.databasePath = resolve(join(dir, DATABASE));
    this.existedBefore = new Set(COMPANIONS.map((c) => this.databasePath + c).filter((p) => existsSync(p)));
    // A file created and removed: unlike access(2), it also fails for root on a read-only mount.
    const probe = join(dir, `.ursa-write-test-${process.pid}`);
    try {
      closeSync(openSync(probe, "wx"));
      unlinkSync(probe);
    } catch (error) {
      this.removeCreated();
      throw new Error(`cannot write to the data directory ${resolve(dir)}: ${explainFsError(error)}`);
    }
  }

  /** After a failed start: removes what this start created, and nothing that was there before. */
  removeCreated(): void {
    if (this.createdDir !== undefined) {
      rmSync(this.createdDir, { recursive: true, force: true });
      return;
    }
    for (const c of COMPANIONS) {
      const path = this.databasePath + c;
      if (!this.existedBefore.has(path) && existsSync(path)) rmSync(path, { force: true });
    }
  }
}

/** A filesystem error as the user should read it, with what to do about it. */
export function explainFsError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const advice = "give ursa a directory it can write with --data DIR (or URSA_DATA), or use --memory";
  switch (code) {
    case "EACCES":
    case "EPERM":
      return `permission denied; ${advice}`;
    case "EROFS":
      return `the file system is read-only; ${advice}`;
    case "ENOTDIR":
    case "EEXIST":
      return `a file is in the way where a directory should be; ${advice}`;
    case "ENOSPC":
      return "no space left on the device";
    default:
      return (error as Error).message;
  }
}

/** A database that cannot be opened, explained; SQLite's own words are kept. */
export function explainOpenError(error: unknown): string {
  const code = (error as { code?: string }).code ?? "";
  const message = (error as Error).message;
  if (error instanceof DatabaseInUseError) return `${message}; stop that ursa, or give this one another directory with --data`;
  if (error instanceof DatabaseDamagedError) return message;
  if (code === "SQLITE_NOTADB" || code === "SQLITE_CORRUPT") return `${message}; move the file aside (or restore it from a backup), or choose another directory with --data`;
  if (code.startsWith("SQLITE_READONLY")) return `the database is read-only (a permission problem: ursa must be able to write the file and its directory): ${message}`;
  if (code.startsWith("SQLITE_CANTOPEN")) return `the file cannot be opened (check its permissions and the directory's): ${message}`;
  if (code === "SQLITE_FULL") return `no space left on the device: ${message}`;
  return message;
}
