// One process per database. Every ursa keeps stream state, producer tables and Stream-Seq values
// in memory and decides writes against them, so a second process on the same files would decide
// against stale state: duplicate offsets, a broken compare-and-set.
//
// On Linux the lock is an OFD lock on a byte of ursa.sqlite itself (ofd-lock.ts): held by the
// kernel, dropped when the process dies (a kill -9 leaves no stale lock), and there is no lock
// file anyone could delete to get a second process in. Where OFD locks are not available (macOS,
// Windows, a Linux without glibc or a file system without locks) it falls back to an exclusive
// SQLite transaction held open on a small file beside the database, `ursa.sqlite-lock`: the
// kernel releases that too when the process dies, but on macOS a person who deletes the file
// while ursa runs lets a second ursa in. Windows refuses to delete a file SQLite holds open.

import { Database } from "bun:sqlite";
import { ofdLock } from "./ofd-lock";

export class DatabaseInUseError extends Error {}

export interface DatabaseLock {
  /** What is held: for the start-up log line. */
  readonly held: string;
  release(): void;
}

export function lockDatabase(dbPath: string): DatabaseLock {
  const ofd = ofdLock(dbPath);
  if (ofd.kind === "locked") return { held: `an OFD lock on ${dbPath}`, release: ofd.release };
  if (ofd.kind === "busy") throw new DatabaseInUseError(`another ursa process is using it (it holds the lock on ${dbPath})`);
  return sidecarLock(dbPath, ofd.why);
}

function sidecarLock(dbPath: string, why: string): DatabaseLock {
  const path = `${dbPath}-lock`;
  const lock = new Database(path, { create: true });
  try {
    lock.exec("PRAGMA busy_timeout = 0");
    lock.exec("BEGIN EXCLUSIVE");
  } catch (error) {
    lock.close();
    if ((error as { code?: unknown }).code === "SQLITE_BUSY") {
      throw new DatabaseInUseError(`another ursa process is using it (it holds ${path})`);
    }
    throw error;
  }
  return {
    held: `a SQLite lock on ${path} (${why})`,
    release: () => {
      lock.exec("ROLLBACK");
      lock.close();
    },
  };
}
