// How large the files of a database are (the database, its WAL, the disk reserve), for the
// metrics; in memory, the pages the database holds.

import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { RESERVE_SUFFIX } from "./disk-reserve";

export function databaseFileSizes(db: Database, path: string): { databaseBytes: number; walBytes: number; reserveBytes: number } {
  if (path === ":memory:") {
    const bytes = db.query<{ n: number }, []>("SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()").get()!.n;
    return { databaseBytes: bytes, walBytes: 0, reserveBytes: 0 };
  }
  const size = (file: string) => statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  return { databaseBytes: size(path), walBytes: size(`${path}-wal`), reserveBytes: size(path + RESERVE_SUFFIX) };
}
