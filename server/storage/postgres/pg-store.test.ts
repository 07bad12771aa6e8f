// Several PgStore instances on one database, against a real cluster (testing/pg-cluster.ts):
// migrations at start, decisions that exactly one instance wins, incarnations across instances,
// group commit and NOTIFY wake-ups.

import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import type { AppendRequest } from "../../protocol/append";
import { LiveHub } from "../../live/hub";
import { createRequest } from "../../protocol/testing-state";
import { publish } from "../contract/helpers";
import { subscriptionRecord } from "../contract/subscriptions";
import { startPgCluster, type PgCluster } from "../../testing/pg-cluster";
import type { ToldChange } from "../store";
import { APPLY_ONE } from "./apply-one-statement";
import { APPLY } from "./apply-statement";
import { PgGroupCommit, type TxSql } from "./group-commit";
import { PgStore, type PgStoreOptions } from "./pg-store";
import { NewerSchemaError, SCHEMA_VERSION } from "./schema";

let cluster: PgCluster;
let databases = 0;
const opened: PgStore[] = [];

beforeAll(async () => {
  cluster = await startPgCluster();
}, 120_000);

afterAll(async () => {
  for (const store of opened) await store.close().catch(() => undefined);
  await cluster?.stop();
}, 60_000);

const freshDatabase = () => cluster.createDatabase(`pgstore_${++databases}`);

async function open(url: string, options: Partial<PgStoreOptions> = {}): Promise<PgStore> {
  const store = await PgStore.open({ url, poolSize: 4, ...options });
  opened.push(store);
  return store;
}

/** Two instances on one fresh database. */
async function pair(): Promise<[PgStore, PgStore]> {
  const url = await freshDatabase();
  return [await open(url), await open(url)];
}

const enc = (s: string) => new TextEncoder().encode(s);
const append = (message: string, overrides: Partial<AppendRequest> = {}): AppendRequest => ({
  contentType: "text/plain",
  messages: [enc(message)],
  close: false,
  streamSeq: null,
  producer: null,
  incarnation: null,
  ...overrides,
});
const create = (key: string) => {
  const [bucket, name] = key.split("/") as [string, string];
  return createRequest({ bucket, name, contentType: "text/plain" });
};

describe("migrations", () => {
  test("a fresh database is migrated at start, by one of two instances starting together", async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const sql = new SQL(url);
    expect(await sql`SELECT value FROM ursa_meta WHERE key = 'schema_version'`).toEqual([{ value: String(SCHEMA_VERSION) }]);
    await sql.close();
    expect((await a.create("m/s", create("m/s"))).kind).toBe("created");
    expect((await b.get("m/s"))?.name).toBe("s");
  }, 60_000);

  test("a database written by a newer ursa is refused, and left as it was", async () => {
    const url = await freshDatabase();
    await (await open(url)).close();
    const sql = new SQL(url);
    await sql`UPDATE ursa_meta SET value = ${String(SCHEMA_VERSION + 1)} WHERE key = 'schema_version'`;
    const refused = await PgStore.open({ url }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(NewerSchemaError);
    expect(await sql`SELECT value FROM ursa_meta WHERE key = 'schema_version'`).toEqual([{ value: String(SCHEMA_VERSION + 1) }]);
    await sql.close();
  }, 60_000);
});

describe("what an append costs the database", () => {
  test("an append updates its stream's row in place (a HOT update: no new index entries), 16 streams written at once", async () => {
    const url = await freshDatabase();
    const store = await PgStore.open({ url, poolSize: 4 });
    const keys = Array.from({ length: 16 }, (_, i) => `hot/s${i}`);
    for (const key of keys) await store.create(key, create(key));
    await Promise.all(keys.map(async (key) => {
      for (let seq = 0; seq < 20; seq++) expect((await store.append(key, append(`m${seq}`, { producer: { id: "p", epoch: 0, seq } }))).kind).toBe("accepted");
    }));
    // The backends report their counts as they exit.
    await store.close();
    const sql = new SQL(url);
    let row: { upd: string; hot: string } | undefined;
    for (let waited = 0; waited < 10_000; waited += 100) {
      await sql`SELECT pg_stat_clear_snapshot()`;
      [row] = await sql`SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_user_tables WHERE relname = 'streams'`;
      if (Number(row!.upd) >= 16 * 20) break;
      await Bun.sleep(100);
    }
    await sql.close();
    expect(Number(row!.upd)).toBeGreaterThanOrEqual(16 * 20);
    expect(row!.hot).toBe(row!.upd);
  }, 60_000);
});

describe("which statement applies a group", () => {
  test("an append alone in its group takes the one-append statement; appends to several streams at once share the group statement; both write the same rows", async () => {
    const url = await freshDatabase();
    const store = await open(url);
    const unsafe = spyOn((store as unknown as { sql: SQL }).sql, "unsafe");
    const applied = () => unsafe.mock.calls.map(([text]) => (text === APPLY_ONE ? "one" : text === APPLY ? "group" : null)).filter((kind) => kind !== null);
    const keys = ["which/a", "which/b"];
    for (const key of keys) await store.create(key, create(key));
    for (const key of keys) expect((await store.append(key, append("alone", { producer: { id: "p", epoch: 0, seq: 0 } }))).kind).toBe("accepted");
    expect(applied()).toEqual(["one", "one"]);
    // Decided on the rows their streams' last commits left, both join the same group.
    const both = await Promise.all(keys.map((key) => store.append(key, append("together", { producer: { id: "p", epoch: 0, seq: 1 } }))));
    expect(both.map((d) => d.kind)).toEqual(["accepted", "accepted"]);
    expect(applied()).toEqual(["one", "one", "group"]);
    unsafe.mockRestore();
    const sql = new SQL(url);
    const rows = await sql`SELECT s.name, m.start, m.append_start, convert_from(m.data, 'UTF8') AS body, p.last_seq, p.last_next, s.tail, s.message_count
      FROM msgs m JOIN streams s ON s.id = m.stream_id JOIN producers p ON p.stream_id = s.id ORDER BY s.name, m.start`;
    await sql.close();
    const row = (name: string, start: string, body: string) => ({ name, start, append_start: start, body, last_seq: "1", last_next: "13", tail: "13", message_count: "2" });
    expect(rows.map((r: Record<string, unknown>) => ({ ...r }))).toEqual([row("a", "0", "alone"), row("a", "5", "together"), row("b", "0", "alone"), row("b", "5", "together")]);
  }, 60_000);
});

describe("the planner's count of streams", () => {
  /** When the stream table was last analyzed by a statement (not by autovacuum), and the planner's row count. */
  async function analyzed(sql: SQL): Promise<{ at: Date | null; counted: number }> {
    await sql`SELECT pg_stat_clear_snapshot()`;
    const [row] = await sql`SELECT s.last_analyze AS at, c.reltuples::float8 AS counted FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = 'streams'`;
    return { at: row.at, counted: row.counted };
  }

  test("a burst of creates is analyzed by the sweep within seconds, and the planner counts the grown table; a small table is left alone", async () => {
    const url = await freshDatabase();
    const store = await open(url, { sweepIntervalMs: 100 });
    const sql = new SQL(url);
    // Autovacuum could analyze it first (within its minute): here only the sweep may.
    await sql`ALTER TABLE streams SET (autovacuum_enabled = false)`;
    for (const key of ["plan/a", "plan/b"]) await store.create(key, create(key));
    await Bun.sleep(500);
    expect((await analyzed(sql)).at).toBeNull();
    await sql`INSERT INTO streams (bucket, name, incarnation, content_type, touched_at_ms, created_at_ms)
      SELECT 'plan', 'bulk' || g, 'x', 'text/plain', 0, 0 FROM generate_series(1, 5000) g`;
    // This session's counts reach the statistics as it goes idle.
    await sql`SELECT pg_stat_force_next_flush()`;
    await sql`SELECT 1`;
    let seen = await analyzed(sql);
    for (let waited = 0; seen.at === null && waited < 10_000; waited += 100) {
      await Bun.sleep(100);
      seen = await analyzed(sql);
    }
    expect(seen.at).not.toBeNull();
    expect(seen.counted).toBe(5002);
    await sql.close();
  }, 60_000);
});

describe("the subscription list on two instances", () => {
  test("is kept between changes (twenty appends, one read), and a subscription saved on the other instance before an append commits is in the list that append's wakes see", async () => {
    const [a, b] = await pair();
    await a.create("subs/s", create("subs/s"));
    let reads = 0;
    const all = a.subscriptions.all.bind(a.subscriptions);
    a.subscriptions.all = async () => (reads++, all());
    expect(await a.subscriptions.forWakes()).toEqual([]);
    for (let i = 0; i < 20; i++) {
      await a.append("subs/s", append(`m${i}`));
      expect(await a.subscriptions.forWakes()).toEqual([]);
    }
    expect(reads).toBe(1);
    for (let round = 0; round < 10; round++) {
      const saved = subscriptionRecord("subs", `s${round}`);
      expect(await b.subscriptions.save(saved)).toBe(true);
      // No wait for the notification: the append's own wake-up, heard back, orders it.
      await a.append("subs/s", append(`after ${round}`));
      expect((await a.subscriptions.forWakes()).map((r) => r.state.id)).toContain(`s${round}`);
    }
    expect(reads).toBeLessThanOrEqual(11);
  }, 60_000);
});

describe("two instances on one database", () => {
  test("Stream-Seq compare-and-set: of writers racing on both instances, exactly one wins each round", async () => {
    const [a, b] = await pair();
    await a.create("race/s", create("race/s"));
    for (let round = 0; round < 15; round++) {
      const seq = String(round).padStart(4, "0");
      const writes = [a, b, a, b, a, b, a, b].map((store, i) => store.append("race/s", append(`r${round}w${i}`, { streamSeq: seq })));
      const kinds = (await Promise.all(writes)).map((d) => (d.kind === "error" ? d.code : d.kind));
      expect(kinds.filter((k) => k === "accepted")).toHaveLength(1);
      expect(kinds.filter((k) => k === "STREAM_SEQ_CONFLICT")).toHaveLength(7);
    }
    const state = (await b.get("race/s"))!;
    expect(state).toMatchObject({ messageCount: 15, lastSeq: "0014" });
  }, 60_000);

  test("producer epochs: a new epoch raced from both instances is accepted once, and fences the old epoch on both", async () => {
    const [a, b] = await pair();
    await a.create("epoch/s", create("epoch/s"));
    for (let epoch = 0; epoch < 10; epoch++) {
      const producer = { id: "p", epoch, seq: 0 };
      const [x, y] = await Promise.all([a.append("epoch/s", append(`a${epoch}`, { producer })), b.append("epoch/s", append(`b${epoch}`, { producer }))]);
      expect([x.kind, y.kind].sort()).toEqual(["accepted", "duplicate"]);
      if (epoch > 0) {
        const stale = await (epoch % 2 ? a : b).append("epoch/s", append("late", { producer: { id: "p", epoch: epoch - 1, seq: 1 } }));
        expect(stale).toMatchObject({ kind: "error", code: "PRODUCER_EPOCH_STALE", context: { producerEpoch: epoch } });
      }
    }
    expect((await a.get("epoch/s"))!.messageCount).toBe(10);
  }, 60_000);

  test("an incarnation token another instance ended is a 412 carrying the current one", async () => {
    const [a, b] = await pair();
    const first = await a.create("inc/s", create("inc/s"));
    if (first.kind !== "created") throw new Error(first.kind);
    const seenByB = (await b.get("inc/s"))!.incarnation;
    expect(seenByB).toBe(first.state.incarnation);
    await a.delete("inc/s", null);
    const second = await a.create("inc/s", create("inc/s"));
    if (second.kind !== "created") throw new Error(second.kind);
    expect(BigInt(second.state.incarnation) > BigInt(seenByB)).toBe(true);
    const refused = await b.append("inc/s", append("x", { incarnation: seenByB }));
    expect(refused).toMatchObject({ kind: "error", code: "STREAM_INCARNATION_MISMATCH", context: { incarnation: second.state.incarnation } });
    expect((await b.get("inc/s"))!.tail).toBe(0);
  }, 60_000);

  test("creates on both instances at once get distinct tokens", async () => {
    const [a, b] = await pair();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).create(`tok/s${i}`, create(`tok/s${i}`))));
    const tokens = outcomes.map((o) => (o.kind === "created" ? o.state.incarnation : o.kind));
    expect(new Set(tokens).size).toBe(20);
  }, 60_000);

  test("a commit on one instance wakes the other's listeners with the stream's id and key, which read it as it now is: appended, then gone", async () => {
    const [a, b] = await pair();
    const created = await a.create("live/s", create("live/s"));
    if (created.kind !== "created") throw new Error(created.kind);
    const heard: ToldChange[] = [];
    let wake: () => void = () => undefined;
    b.onChange((changes) => {
      heard.push(...changes);
      wake();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    let woken = next();
    await a.append("live/s", append("hello"));
    await woken;
    expect(heard.at(-1)).toEqual({ kind: "touched", id: created.state.id, key: "live/s" });
    expect((await b.get("live/s"))!.tail).toBe(5);
    woken = next();
    await a.delete("live/s", null);
    await woken;
    expect(heard.at(-1)).toEqual({ kind: "touched", id: created.state.id, key: "live/s" });
    const after = await b.get("live/s");
    expect(after === undefined || after.softDeleted).toBe(true);
  }, 60_000);
});

describe("group commit", () => {
  test("concurrent writes on one instance share transactions, each keeping its own outcome", async () => {
    const url = await freshDatabase();
    const sizes: number[] = [];
    const store = await open(url, { commitObserver: { batch: (writes) => sizes.push(writes), sync: () => undefined } });
    await store.create("gc/s", create("gc/s"));
    const outcomes = await Promise.all(Array.from({ length: 40 }, (_, i) => store.append("gc/s", append(`m${i}`, { streamSeq: String(i % 20).padStart(2, "0") }))));
    // Stream-Seq values 00..19, then the same again: the writes are decided in the order sent, so
    // the first twenty are accepted and the second twenty refused, whichever transaction each is in.
    expect(outcomes.map((o) => (o.kind === "error" ? o.code : o.kind))).toEqual([...Array(20).fill("accepted"), ...Array(20).fill("STREAM_SEQ_CONFLICT")]);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(sizes.reduce((sum, n) => sum + n, 0)).toBe(41);
    const state = (await store.get("gc/s"))!;
    expect(state.messageCount).toBe(outcomes.filter((o) => o.kind === "accepted").length);
  }, 60_000);
  test("a deadlock between two instances' transactions is retried by the engine: both writes commit, the loser on its second attempt", async () => {
    const url = await freshDatabase();
    const setup = new SQL(url);
    await setup`CREATE TABLE deadlock (id int PRIMARY KEY, v int NOT NULL)`;
    await setup`INSERT INTO deadlock VALUES (1, 0), (2, 0)`;
    const pools = [new SQL({ url, max: 2 }), new SQL({ url, max: 2 })];
    const hooks = { beforeCommit: async () => null, committed: () => undefined, failed: () => undefined };
    const [a, b] = pools.map((sql) => new PgGroupCommit(sql, hooks));
    // Each write locks one row, waits until the other holds its first row too, then locks the
    // other's: opposite orders, a certain deadlock on the first attempt, which PostgreSQL breaks
    // by aborting one transaction (40P01) after deadlock_timeout.
    let holding = 0;
    let bothHold: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (bothHold = resolve));
    const attempts = [0, 0];
    const write = (i: number, first: number, second: number) => async (tx: TxSql) => {
      await tx`UPDATE deadlock SET v = v + 1 WHERE id = ${first}`;
      if (attempts[i]!++ === 0) {
        if (++holding === 2) bothHold();
        await held;
      }
      await tx`UPDATE deadlock SET v = v + 1 WHERE id = ${second}`;
      return i;
    };
    const none = { streams: [], buckets: [] };
    expect(await Promise.all([a!.submit(none, write(0, 1, 2)), b!.submit(none, write(1, 2, 1))])).toEqual([0, 1]);
    expect(attempts.sort()).toEqual([1, 2]);
    expect(await setup`SELECT id, v FROM deadlock ORDER BY id`).toEqual([
      { id: 1, v: 2 },
      { id: 2, v: 2 },
    ]);
    for (const sql of [setup, ...pools]) await sql.close();
  }, 60_000);
});

describe("introspection", () => {
  test("a fork family is read from the database: up to the first source, then every fork below it", async () => {
    const [a, b] = await pair();
    expect((await a.create("fam/root", create("fam/root"))).kind).toBe("created");
    expect((await a.append("fam/root", append("ab"))).kind).toBe("accepted");
    const fork = (key: string, sourceKey: string) => ({ ...create(key), fork: { sourceKey, offset: null, subOffset: null } });
    expect((await a.create("fam/child", fork("fam/child", "fam/root"))).kind).toBe("created");
    expect((await b.create("fam/grandchild", fork("fam/grandchild", "fam/child"))).kind).toBe("created");
    expect((await b.create("fam/sibling", fork("fam/sibling", "fam/root"))).kind).toBe("created");
    const family = await a.introspection.forkTree((await a.get("fam/grandchild"))!);
    expect(family.lineage.map((s) => s.name)).toEqual(["root", "child", "grandchild"]);
    expect(family.nodes).toBe(4);
    expect(family.truncated).toBe(false);
    expect(family.root.children.map((n) => n.state.name)).toEqual(["child", "sibling"]);
    expect(family.root.children[0]!.children.map((n) => n.state.name)).toEqual(["grandchild"]);
  });
});

describe("snapshot leases across instances", () => {
  const blobCount = async (url: string, blobId: number) => {
    const sql = new SQL(url);
    const [row] = await sql`SELECT (SELECT count(*) FROM snapshot_blobs WHERE id = ${blobId})::int AS blobs, (SELECT count(*) FROM snapshot_chunks WHERE blob_id = ${blobId})::int AS chunks`;
    await sql.close();
    return row as { blobs: number; chunks: number };
  };

  test("a blob one instance is streaming outlives another instance's replacing it, and is collected when the reader lets go", async () => {
    const url = await freshDatabase();
    const [a, b] = [await open(url), await open(url)];
    await a.create("snap/s", create("snap/s"));
    await a.append("snap/s", append("abc"));
    await a.append("snap/s", append("de"));
    expect((await publish(a, "snap/s", 3, "first")).kind).toBe("published");
    const old = (await b.get("snap/s"))!.snapshot!;
    const reader = await b.openSnapshot(old);
    expect((await publish(a, "snap/s", 5, "second")).kind).toBe("published");
    await a.settle();
    expect(new TextDecoder().decode(await reader.chunk(0))).toBe("first");
    expect(await blobCount(url, old.blobId)).toEqual({ blobs: 1, chunks: 1 });
    reader.release();
    await b.settle();
    expect(await blobCount(url, old.blobId)).toEqual({ blobs: 0, chunks: 0 });
  }, 60_000);

  test("the lease of a reader whose instance stopped runs out, and the blob is then collected by another instance's sweep", async () => {
    const url = await freshDatabase();
    const a = await open(url, { sweepIntervalMs: 100 });
    const b = await open(url, { snapshotLeaseMs: 600 });
    await a.create("snap/s", create("snap/s"));
    await a.append("snap/s", append("abc"));
    await a.append("snap/s", append("de"));
    expect((await publish(a, "snap/s", 3, "first")).kind).toBe("published");
    const old = (await b.get("snap/s"))!.snapshot!;
    await b.openSnapshot(old);
    await b.close();
    expect((await publish(a, "snap/s", 5, "second")).kind).toBe("published");
    await a.settle();
    expect((await blobCount(url, old.blobId)).blobs).toBe(1);
    const deadline = Date.now() + 10_000;
    while ((await blobCount(url, old.blobId)).blobs > 0 && Date.now() < deadline) await Bun.sleep(100);
    expect(await blobCount(url, old.blobId)).toEqual({ blobs: 0, chunks: 0 });
  }, 60_000);

  test("a reader is refused a blob collected before its lease was taken", async () => {
    const [a, b] = await pair();
    await a.create("snap/s", create("snap/s"));
    await a.append("snap/s", append("abc"));
    await a.append("snap/s", append("de"));
    expect((await publish(a, "snap/s", 3, "first")).kind).toBe("published");
    const old = (await b.get("snap/s"))!.snapshot!;
    expect((await publish(a, "snap/s", 5, "second")).kind).toBe("published");
    await a.settle();
    await expect(b.openSnapshot(old)).rejects.toThrow(/is gone/);
  }, 60_000);
});

describe("wake-ups sent while an instance's LISTEN was down", () => {
  // The window is held open by refusing new connections to the database while the listeners'
  // backends are terminated: the commit on A is made before B can LISTEN again. B's clock jumps
  // two minutes for the longer outage, which a re-read of only recent writes would miss.
  for (const [outage, jumpMs] of [
    ["its backend terminated", 0],
    ["an outage longer than a minute", 120_000],
  ] as const) {
    test(`a reader parked on B wakes for A's commit made meanwhile (${outage})`, async () => {
      const url = await freshDatabase();
      const database = new URL(url).pathname.slice(1);
      let jump = 0;
      const a = await open(url);
      const b = await open(url, { now: () => Date.now() + jump });
      const created = await a.create("lost/s", create("lost/s"));
      if (created.kind !== "created") throw new Error(created.kind);
      const hub = new LiveHub(b, { maxReaders: 10, maxPerClient: 10 });
      const poll = hub.poll(created.state.id, hub.mark());
      const woken = poll.next(30_000).finally(() => poll.close());
      const admin = new SQL(cluster.url);
      try {
        await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS false`);
        const ended: unknown[] = await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${database} AND query ILIKE 'LISTEN%'`;
        expect(ended).toHaveLength(2);
        expect((await a.append("lost/s", append("hello"))).kind).toBe("accepted");
        jump = jumpMs;
        await Bun.sleep(300);
      } finally {
        await admin.unsafe(`ALTER DATABASE "${database}" ALLOW_CONNECTIONS true`);
        await admin.close();
      }
      expect(await woken).toBe("changed");
      expect((await b.get("lost/s"))!.tail).toBe(5);
    }, 60_000);
  }
});

describe("sliding TTL renewals", () => {
  test("a read's renewal is seen by every instance at once, and writes the stream's row only once a quarter of the TTL has passed", async () => {
    const url = await freshDatabase();
    let now = 1_000_000;
    const clock = { now: () => now };
    const [a, b] = [await open(url, clock), await open(url, clock)];
    expect((await a.create("ttl/s", createRequest({ bucket: "ttl", name: "s", contentType: "text/plain", lifetime: { ttlSeconds: 10, expiresAtMs: null } }))).kind).toBe("created");
    const sql = new SQL(url);
    const row = async () => (await sql`SELECT xmin::text AS version, touched_at_ms::int AS touched FROM streams WHERE name = 's'`)[0] as { version: string; touched: number };
    const before = await row();
    for (const at of [1_000, 2_000]) {
      now = 1_000_000 + at;
      await a.renewTtl("ttl/s");
    }
    expect(await row()).toEqual(before);
    now = 1_000_000 + 11_999;
    expect((await b.get("ttl/s"))?.touchedAtMs).toBe(1_002_000);
    now = 1_000_000 + 12_000;
    expect(await b.get("ttl/s")).toBeUndefined();
    await b.settle();
    expect(await a.get("ttl/s")).toBeUndefined();
    await sql.close();
  }, 60_000);

  test("a renewal a quarter of the TTL after the row's touch writes the row, so a crash that empties the unlogged touches loses less than that", async () => {
    const url = await freshDatabase();
    let now = 1_000_000;
    const a = await open(url, { now: () => now });
    expect((await a.create("ttl/s", createRequest({ bucket: "ttl", name: "s", contentType: "text/plain", lifetime: { ttlSeconds: 10, expiresAtMs: null } }))).kind).toBe("created");
    const sql = new SQL(url);
    now += 2_500;
    await a.renewTtl("ttl/s");
    now += 1_000;
    await a.renewTtl("ttl/s");
    expect(await sql`SELECT touched_at_ms::int AS touched FROM streams WHERE name = 's'`).toEqual([{ touched: 1_002_500 }]);
    await sql`TRUNCATE stream_touches`;
    expect((await a.get("ttl/s"))?.touchedAtMs).toBe(1_002_500);
    await sql.close();
  }, 60_000);
});

describe("stats", () => {
  test("the database's size is reported, and the WAL's when the role may list pg_wal (superuser here), else 0", async () => {
    const store = await open(await freshDatabase());
    const stats = store.stats();
    expect(stats.databaseBytes).toBeGreaterThan(1_000_000);
    expect(stats.walBytes).toBeGreaterThanOrEqual(16 * 1024 * 1024);
    const admin = new SQL(cluster.url);
    await admin`CREATE ROLE ursa_plain LOGIN`;
    await admin`CREATE DATABASE pgstore_plain OWNER ursa_plain`;
    await admin.close();
    const url = new URL(cluster.urlFor("pgstore_plain"));
    url.username = "ursa_plain";
    const plain = await open(url.toString());
    expect(plain.stats().databaseBytes).toBeGreaterThan(1_000_000);
    expect(plain.stats().walBytes).toBe(0);
  }, 60_000);

  test("background tasks count a replaced snapshot's collection until it is done", async () => {
    const store = await open(await freshDatabase());
    await store.create("snap/s", create("snap/s"));
    await store.append("snap/s", append("abc"));
    await store.append("snap/s", append("de"));
    expect((await publish(store, "snap/s", 3, "first")).kind).toBe("published");
    await store.settle();
    expect(store.stats().backgroundTasks).toBe(0);
    expect((await publish(store, "snap/s", 5, "second")).kind).toBe("published");
    expect(store.stats().backgroundTasks).toBeGreaterThan(0);
    await store.settle();
    expect(store.stats().backgroundTasks).toBe(0);
  }, 60_000);
});
