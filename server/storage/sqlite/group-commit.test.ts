import { Database } from "bun:sqlite";
import { describe, expect, test } from "bun:test";
import type { CommitObserver } from "../commit-observer";
import { CONCURRENT_FOR_MS, GroupCommit, type Sync } from "./group-commit";

/** A sync whose background runs are `inBackground` and whose inline runs are logged. */
function syncing(inBackground: () => Promise<void>, log: string[], now: () => void = () => undefined): Sync {
  return { inBackground, now: () => (log.push("sync now"), now()) };
}

function setup(makeSync?: (log: string[]) => Sync, mayHoldLoop = () => true, observer?: CommitObserver) {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (v INTEGER NOT NULL)");
  const log: string[] = [];
  const sync = makeSync?.(log);
  let n = 0;
  const gc = new GroupCommit<{ n: number }>({
    begin: db.prepare("BEGIN"),
    commit: db.prepare("COMMIT"),
    rollback: db.prepare("ROLLBACK"),
    open: () => ({ n: ++n }),
    finish: () => undefined,
    committed: (tx) => log.push(`committed ${tx.n}`),
    durable: (tx) => log.push(`durable ${tx.n}`),
    sync,
    syncFailed: (e) => log.push(`sync failed ${e}`),
    failed: (e) => log.push(`failed ${(e as { code?: string }).code}`),
    mayHoldLoop,
  }, observer);
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

  test("a write that fails is refused alone: the batch rolls back and the others commit, each alone", async () => {
    const { gc, insert, rows, log } = setup();
    const outcomes = await Promise.allSettled([
      gc.submit(() => insert.run(1)),
      gc.submit(() => insert.run(null as unknown as number)), // NOT NULL: SQLite refuses it
      gc.submit(() => insert.run(3)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(rows()).toEqual([1, 3]);
    // The shared transaction (1) and the failing write alone (3) rolled back; 2 and 4 committed.
    expect(log.filter((l) => l.startsWith("committed"))).toEqual(["committed 2", "committed 4"]);
    // Only the write that failed alone is reported, not the batch it first shared.
    expect(log.filter((l) => l.startsWith("failed"))).toEqual(["failed SQLITE_CONSTRAINT_NOTNULL"]);
  });

  test("a lone write that fails is refused and run once: a second try that would succeed must not commit it", async () => {
    const { gc, insert, rows, log } = setup();
    let tries = 0;
    const outcome = await gc
      .submit(() => {
        // Fails the first time only, as a write on a disk that another process frees meanwhile.
        insert.run(++tries === 1 ? (null as unknown as number) : 7);
      })
      .then(
        () => "fulfilled",
        () => "rejected",
      );
    expect(outcome).toBe("rejected");
    expect(tries).toBe(1);
    expect(rows()).toEqual([]);
    expect(log.filter((l) => l.startsWith("committed"))).toEqual([]);
  });

  test("the observer hears each transaction's size and each sync, on the loop or off it", async () => {
    const batches: number[] = [];
    let syncs = 0;
    const observer: CommitObserver = {
      batch: (writes, seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        batches.push(writes);
      },
      sync: (seconds) => {
        expect(seconds).toBeGreaterThanOrEqual(0);
        syncs++;
      },
    };
    const { gc, insert } = setup((l) => syncing(() => Promise.resolve(), l), () => false, observer);
    await Promise.all([1, 2, 3].map((v) => gc.submit(() => insert.run(v))));
    await gc.submit(() => insert.run(4));
    expect(batches).toEqual([3, 1]);
    expect(syncs).toBe(2);
  });

  test("a hold begins no transaction until it ends; the writes submitted meanwhile share one", async () => {
    const { gc, insert, rows, log } = setup();
    let end!: () => void;
    gc.hold(new Promise<void>((r) => (end = r)));
    const first = gc.submit(() => insert.run(1));
    await Bun.sleep(5);
    const second = gc.submit(() => insert.run(2));
    await Bun.sleep(5);
    expect(rows()).toEqual([]);
    expect(log).toEqual([]);
    end();
    await Promise.all([first, second]);
    expect(rows()).toEqual([1, 2]);
    expect(log).toEqual(["committed 1", "durable 1"]);
  });

  test("with a sync, nothing in a batch is acknowledged or made visible before the background sync completes", async () => {
    let release!: () => void;
    const { gc, insert, log } = setup((l) => syncing(() => new Promise<void>((r) => (release = r)), l));
    let acked = 0;
    const writes = [1, 2].map((v) => gc.submit(() => insert.run(v)).then(() => acked++));
    await Bun.sleep(5);
    expect(log).toEqual(["committed 1"]);
    expect(acked).toBe(0);
    release();
    await Promise.all(writes);
    expect(log).toEqual(["committed 1", "durable 1"]);
    expect(acked).toBe(2);
  });

  test("a lone write with no sync running is synced on the event loop, after COMMIT and before it is acknowledged", async () => {
    const { gc, insert, log } = setup((l) => syncing(() => Promise.reject(new Error("not in the background")), l));
    await gc.submit(() => insert.run(1));
    expect(log).toEqual(["committed 1", "sync now", "durable 1"]);
  });

  test("a lone write the event loop may not stop for is synced in the background", async () => {
    let release!: () => void;
    let mayHold = false;
    const { gc, insert, log } = setup((l) => syncing(() => new Promise<void>((r) => (release = r)), l), () => mayHold);
    let acked = false;
    const write = gc.submit(() => insert.run(1)).then(() => (acked = true));
    await Bun.sleep(5);
    expect(acked).toBe(false);
    release();
    await write;
    mayHold = true;
    await gc.submit(() => insert.run(2));
    expect(log).toEqual(["committed 1", "durable 1", "committed 2", "sync now", "durable 2"]);
  });

  test("for a while after two writes shared a batch, lone writes are synced in the background too", async () => {
    const { gc, insert, log } = setup((l) => syncing(() => Promise.resolve(), l));
    await Promise.all([gc.submit(() => insert.run(1)), gc.submit(() => insert.run(2))]);
    await gc.submit(() => insert.run(3));
    expect(log).not.toContain("sync now");
    await Bun.sleep(CONCURRENT_FOR_MS + 5);
    await gc.submit(() => insert.run(4));
    expect(log).toEqual(["committed 1", "durable 1", "committed 2", "durable 2", "committed 3", "sync now", "durable 3"]);
  });

  test("a lone write while a background sync runs waits for a sync of its own", async () => {
    const releases: (() => void)[] = [];
    let mayHold = false;
    const { gc, insert, log } = setup((l) => syncing(() => new Promise<void>((r) => releases.push(r)), l), () => mayHold);
    // A write the event loop may not stop for puts a sync in the background on its own.
    const big = gc.submit(() => insert.run(1));
    await Bun.sleep(5);
    mayHold = true;
    let acked = false;
    const lone = gc.submit(() => insert.run(2)).then(() => (acked = true));
    await Bun.sleep(5);
    expect(log).not.toContain("sync now");
    expect(releases).toHaveLength(2);
    releases[0]!();
    await big;
    expect(acked).toBe(false);
    releases[1]!();
    await lone;
    expect(log).toEqual(["committed 1", "committed 2", "durable 1", "durable 2"]);
  });

  test("two syncs may run at once; each acknowledges exactly what was committed before it began, in commit order", async () => {
    const releases: (() => void)[] = [];
    const { gc, insert, log } = setup((l) => syncing(() => new Promise<void>((r) => releases.push(r)), l));
    const acked: number[] = [];
    // A batch of two goes to the background, and so do the lone writes just after it.
    const first = gc.submit(() => insert.run(1)).then(() => acked.push(1));
    void gc.submit(() => insert.run(10));
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

  test("a failed background sync is reported, and nothing is acknowledged then or after", async () => {
    let fail = true;
    const { gc, insert, log } = setup((l) => syncing(() => (fail ? Promise.reject(new Error("EIO")) : Promise.resolve()), l));
    let acked = 0;
    for (const v of [1, 2]) void gc.submit(() => insert.run(v)).then(() => acked++);
    await Bun.sleep(5);
    expect(log).toContain("sync failed Error: EIO");
    fail = false;
    void gc.submit(() => insert.run(3)).then(() => acked++);
    await Bun.sleep(5);
    expect(acked).toBe(0);
    expect(log).not.toContain("sync now");
  });

  test("a failed inline sync is reported, and nothing is acknowledged then or after", async () => {
    let fail = true;
    const eio = () => {
      if (fail) throw new Error("EIO");
    };
    const { gc, insert, log } = setup((l) => syncing(() => Promise.resolve(), l, eio));
    let acked = 0;
    void gc.submit(() => insert.run(1)).then(() => acked++);
    await Bun.sleep(5);
    expect(log).toEqual(["committed 1", "sync now", "sync failed Error: EIO"]);
    fail = false;
    void gc.submit(() => insert.run(2)).then(() => acked++);
    void gc.submit(() => insert.run(3)).then(() => acked++);
    await Bun.sleep(5);
    expect(acked).toBe(0);
    expect(log.filter((l) => l.startsWith("durable"))).toEqual([]);
  });
});
