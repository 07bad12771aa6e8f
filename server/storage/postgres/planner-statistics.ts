// The planner's count of stream rows, kept up with the table's growth. Each connection prepares
// the appends' group statement once, and PostgreSQL keeps its generic plan until the table's
// statistics change: planned while the table held a few rows, it joins a group to `streams` by a
// sequential scan, and kept while the table grows, it scans every row for every group (176 ms a
// statement at a million streams, against 0.7 ms once analyzed: docs/design/pg-group-apply.md).
// Autovacuum analyzes the table within its naptime, a minute by default; the sweep analyzes it
// as soon as it holds twice the rows the planner last counted, so plans follow a burst of
// creates within seconds. ANALYZE blocks no reads or writes, and runs at each doubling only.

import type { SQL } from "bun";

/** Below this many rows a scan of the table costs about what the index does. */
const MIN_ROWS = 1000;

export class PlannerStatistics {
  constructor(private readonly sql: SQL) {}

  /** Analyzes `streams` if it outgrew the planner's count. */
  async keepUp(): Promise<void> {
    const [row]: { counted: number; live: string }[] = await this.sql`SELECT c.reltuples::float8 AS counted, s.n_live_tup AS live
      FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.oid = 'streams'::regclass`;
    if (row && Number(row.live) > 2 * Math.max(row.counted, MIN_ROWS)) await this.sql`ANALYZE streams`;
  }
}
