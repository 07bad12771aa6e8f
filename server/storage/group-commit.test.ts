import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import { GroupCommit } from "./group-commit";

function setup(sync?: () => Promise<void>) {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (v INTEGER NOT NULL)");
  const log: string[] = [];
  let n = 0;
  const gc = new GroupCommit<{ n: number; undone: boolean }>({
    begin: db.prepare("BEGIN"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
    open: () => ({ n: ++n, undone: false }),
    abort: (tx) => log.push(`abort ${tx.n}`),
    finish: () => undefined,
    committed: (tx) => log.push(`committed ${tx.n}`),
    durable: (tx) => log.push(`durable ${tx.n}`),
    sync,
    syncFailed: (e) => log.push(`sync failed ${e}`),
  });
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  const rows = () => db.query<{ v: number }, []>("SELECT v FROM t ORDER BY v").all().map((r) => r.v);
  return { gc, insert, rows, log };
}

describe("group commit", () => {
  test("writes submitted in one turn share one transaction and each gets its own result", async () => {
    const { gc, insert, rows, log } = setup();
    const results = await Promise.all([1, 2, 3].map((v) => gc.submit(() => (insert.run(v), v * 10))));
    expect(results).toEqual([10, 20, 30]);
    expect(rows()).toEqual([1, 2, 3]);
    expect(log).toEqual(["committed 1", "durable 1"]);
  });

  test("a write that fails is refused alone: the batch rolls back, its in-place changes are undone, and the others commit", async () => {
    const { gc, insert, rows, log } = setup();
    const outcomes = await Promise.allSettled([
      gc.submit(() => insert.run(1)),
      gc.submit(() => insert.run(null as unknown as number)), // NOT NULL: SQLite refuses it
      gc.submit(() => insert.run(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(rows()).toEqual([1, 3]);
    expect(log.filter((l) => l.startsWith("abort"))).toHaveLength(2);
  });

  test("with a sync, nothing is acknowledged or made visible before the sync completes", async () => {
    let release!: () => void;
    const { gc, insert, log } = setup(() => new Promise<void>((r) => (release = r)));
    let acked = false;
    const write = gc.submit(() => insert.run(1)).then(() => (acked = true));
    await Bun.sleep(5);
    expect(log).toEqual(["committed 1"]);
    expect(acked).toBe(false);
    release();
    await write;
    expect(log).toEqual(["committed 1", "durable 1"]);
  });

  test("a failed sync is reported and acknowledges nothing", async () => {
    const { gc, insert, log } = setup(() => Promise.reject(new Error("EIO")));
    let acked = false;
    void gc.submit(() => insert.run(1)).then(() => (acked = true));
    await Bun.sleep(5);
    expect(log).toContain("sync failed Error: EIO");
    expect(acked).toBe(false);
  });
});
