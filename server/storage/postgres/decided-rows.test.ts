// An instance decides its next append of a stream on the row its last one committed (decided-rows.ts),
// without reading it again, and the version check still finds out a row that moved meanwhile.
// Against a real cluster: the reads are counted on the store's own client, and the kept rows are
// made stale by another instance, or by hand, to see the write read and decide again.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SQL } from "bun";
import type { AppendRequest } from "../../protocol/append";
import { createRequest } from "../../protocol/testing-state";
import { startPgCluster, type PgCluster } from "../../testing/pg-cluster";
import type { ConditionalContext } from "./conditional-apply";
import { PgStore } from "./pg-store";

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

async function pair(key: string): Promise<[PgStore, PgStore]> {
  const url = await cluster.createDatabase(`decided_${++databases}`);
  const stores = [await PgStore.open({ url, poolSize: 4 }), await PgStore.open({ url, poolSize: 4 })] as [PgStore, PgStore];
  opened.push(...stores);
  const [bucket, name] = key.split("/") as [string, string];
  expect((await stores[0].create(key, createRequest({ bucket, name, contentType: "text/plain" }))).kind).toBe("created");
  return stores;
}

/** The store's conditional appends' context, whose reads of stream rows are counted from here on. */
function watch(store: PgStore): { context: ConditionalContext; rowReads: () => number } {
  const context = (store as unknown as { conditionalContext: ConditionalContext }).conditionalContext;
  const sql = context.sql;
  let reads = 0;
  context.sql = new Proxy(sql, {
    get(target, prop, receiver) {
      if (prop !== "unsafe") return Reflect.get(target, prop, receiver);
      return (text: string, values?: unknown[]) => {
        if (text.startsWith("SELECT") && text.includes("FROM streams WHERE bucket = $1 AND name = $2")) reads++;
        return target.unsafe(text, values);
      };
    },
  }) as SQL;
  return { context, rowReads: () => reads };
}

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);
const produced = (message: string, seq: number, overrides: Partial<AppendRequest> = {}): AppendRequest => ({
  contentType: "text/plain",
  messages: [enc(message)],
  close: false,
  streamSeq: null,
  producer: { id: "p", epoch: 0, seq },
  incarnation: null,
  ...overrides,
});

async function log(store: PgStore, key: string): Promise<string[]> {
  const state = (await store.get(key))!;
  return (await store.readRange(state, 0, 1 << 24, true)).chunks.map(dec);
}

describe("decided rows", () => {
  test("an instance's appends of one stream after its first are decided on the row it committed: one read for ten appends", async () => {
    const [a] = await pair("kept/one");
    const { rowReads } = watch(a);
    for (let seq = 0; seq < 10; seq++) expect((await a.append("kept/one", produced(`m${seq}`, seq))).kind).toBe("accepted");
    expect(rowReads()).toBe(1);
    expect(await log(a, "kept/one")).toEqual(Array.from({ length: 10 }, (_, i) => `m${i}`));
  }, 60_000);

  test("[CW] a kept row another instance moved on: the version check refuses the apply, the write reads again, and a producer's retry there is a duplicate, not a second append", async () => {
    const [a, b] = await pair("kept/moved");
    const { context, rowReads } = watch(a);
    expect((await a.append("kept/moved", produced("m0", 0))).kind).toBe("accepted");
    const kept = context.decided.take("kept/moved")!;
    expect((await b.append("kept/moved", produced("m1", 1))).kind).toBe("accepted");
    // As if b's notification had not reached a yet: a still holds the row from before b's append.
    context.decided.keep("kept/moved", kept);
    const before = rowReads();
    const retry = await a.append("kept/moved", produced("m1", 1));
    expect(retry.kind).toBe("duplicate");
    expect(rowReads()).toBe(before + 1);
    expect(await log(b, "kept/moved")).toEqual(["m0", "m1"]);
  }, 60_000);

  test("a refusal found on a kept row is decided again on a fresh read: a stream deleted and made again elsewhere takes the append", async () => {
    const [a, b] = await pair("kept/again");
    const { context } = watch(a);
    expect((await a.append("kept/again", produced("last", 0, { close: true }))).kind).toBe("accepted");
    const kept = context.decided.take("kept/again")!;
    expect(kept.state.closed).toBe(true);
    const deleted = await b.delete("kept/again", null);
    expect(deleted.kind).not.toBe("error");
    expect((await b.create("kept/again", createRequest({ bucket: "kept", name: "again", contentType: "text/plain" }))).kind).toBe("created");
    context.decided.keep("kept/again", kept);
    expect((await a.append("kept/again", produced("first", 0))).kind).toBe("accepted");
    expect(await log(b, "kept/again")).toEqual(["first"]);
  }, 60_000);
});
