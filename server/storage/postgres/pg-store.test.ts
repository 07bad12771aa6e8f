// Several PgStore instances on one database, against a real cluster (testing/pg-cluster.ts):
// migrations at start, decisions that exactly one instance wins, incarnations across instances,
// group commit and NOTIFY wake-ups.

import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { AppendRequest } from "../../protocol/append";
import { LiveHub } from "../../live/hub";
import { createRequest } from "../../protocol/testing-state";
import { publish } from "../contract/helpers";
import { startPgCluster, type PgCluster } from "../../testing/pg-cluster";
import type { StreamChange } from "../store";
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

  test("a commit on one instance wakes the other's listeners with the stream as it now reads, and a delete as gone", async () => {
    const [a, b] = await pair();
    const created = await a.create("live/s", create("live/s"));
    if (created.kind !== "created") throw new Error(created.kind);
    const heard: StreamChange[] = [];
    let wake: () => void = () => undefined;
    b.onChange((changes) => {
      heard.push(...changes);
      wake();
    });
    const next = () => new Promise<void>((resolve) => (wake = resolve));
    let woken = next();
    await a.append("live/s", append("hello"));
    await woken;
    expect(heard.at(-1)).toMatchObject({ state: { id: created.state.id, tail: 5 } });
    woken = next();
    await a.delete("live/s", null);
    await woken;
    expect(heard.at(-1)).toEqual({ kind: "gone", id: created.state.id, key: "live/s" });
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
      const woken = hub.wait(created.state.id, 30_000);
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
