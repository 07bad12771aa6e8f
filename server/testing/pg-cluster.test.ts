import { SQL } from "bun";
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
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
    // initdb, two starts, two stops and createdb, on a machine other tests keep busy.
  }, 180_000);

  test("a halted cluster resumes on its port even when something held the port for a moment", async () => {
    const cluster = await startPgCluster();
    try {
      await cluster.halt();
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(cluster.port, "127.0.0.1", resolve));
      setTimeout(() => holder.close(), 1_500);
      await cluster.resume();
      expect(cluster.log()).toMatch(/could not bind|Address already in use/);
      expect(await cluster.psql("ursa", "SELECT 1")).toBe("1");
    } finally {
      await cluster.stop();
    }
  }, 180_000);
});
