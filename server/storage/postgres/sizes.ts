// The database's size and its write-ahead log's, for stats() and /metrics (ursa_database_bytes,
// ursa_wal_bytes), measured by the sweep rather than per scrape: pg_database_size walks the
// database's files. Any role may ask pg_database_size of a database it can connect to; the WAL
// directory is listed by pg_ls_waldir, which needs superuser or pg_monitor, so without either
// the WAL figure is 0 (docs/operations.md says so). The WAL is the cluster's, shared by every
// database on it, not this database's alone.

import type { SQL } from "bun";

/** SQLSTATE insufficient_privilege. */
const NOT_ALLOWED = "42501";

export class DatabaseSizes {
  databaseBytes = 0;
  walBytes = 0;
  private walReadable = true;

  constructor(private readonly sql: SQL) {}

  async measure(): Promise<void> {
    const [db]: { n: string }[] = await this.sql`SELECT pg_database_size(current_database()) AS n`;
    this.databaseBytes = Number(db!.n);
    if (!this.walReadable) return;
    try {
      const [wal]: { n: string }[] = await this.sql`SELECT COALESCE(sum(size), 0) AS n FROM pg_ls_waldir()`;
      this.walBytes = Number(wal!.n);
    } catch (error) {
      if ((error as { errno?: unknown }).errno !== NOT_ALLOWED) throw error;
      this.walReadable = false;
    }
  }
}
