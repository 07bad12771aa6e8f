import { SQL } from "bun";
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { startPgCluster } from "./pg-cluster.ts";

describe("pg-cluster", () => {
  test("starts a durable cluster, survives a halt, and removes itself", async () => {
    const cluster = await startPgCluster();
    try {
      const sql = new SQL(cluster.url);
      const [row] = await sql`SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc`;
      expect(row).toEqual({ fsync: "on", sc: "on" });
      await sql`CREATE TABLE t (v int)`;
      await sql`INSERT INTO t VALUES (1)`;
      await sql.close();

      await cluster.halt();
      await cluster.resume();
      const again = new SQL(cluster.url);
      expect(await again`SELECT v FROM t`).toEqual([{ v: 1 }]);
      expect(await cluster.psql("ursa", "SELECT v FROM t")).toBe("1");
      const other = await cluster.createDatabase("other");
      await again.close();
      const o = new SQL(other);
      expect((await o`SELECT current_database() AS d`)[0].d).toBe("other");
      await o.close();
    } finally {
      await cluster.stop();
    }
    expect(existsSync(cluster.dir)).toBe(false);
  }, 60_000);
});
