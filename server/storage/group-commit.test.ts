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

  test("two syncs may run at once; each acknowledges exactly what was committed before it began, in commit order", async () => {
    const releases: (() => void)[] = [];
    const { gc, insert, log } = setup(() => new Promise<void>((r) => releases.push(r)));
    const acked: number[] = [];
    const first = gc.submit(() => insert.run(1)).then(() => acked.push(1));
    await Bun.sleep(5);
    const second = gc.submit(() => insert.run(2)).then(() => acked.push(2));
    await Bun.sleep(5);
    // A third commit waits: two syncs are already running.
    const third = gc.submit(() => insert.run(3)).then(() => acked.push(3));
    await Bun.sleep(5);
    expect(releases).toHaveLength(2);
    expect(log).toEqual(["committed 1", "committed 2", "committed 3"]);
    // The later sync returns first: it covers transactions 1 and 2, never 3.
    releases[1]!();
    await second;
    expect(acked).toEqual([1, 2]);
    expect(log.filter((l) => l.startsWith("durable"))).toEqual(["durable 1", "durable 2"]);
    // Its slot went to a sync for 3; the earlier sync returning now acknowledges nothing new.
    expect(releases).toHaveLength(3);
    releases[0]!();
    await Bun.sleep(5);
    expect(acked).toEqual([1, 2]);
    releases[2]!();
    await Promise.all([first, third]);
    expect(acked).toEqual([1, 2, 3]);
    expect(log.filter((l) => l.startsWith("durable"))).toEqual(["durable 1", "durable 2", "durable 3"]);
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
