// A StreamState the store hands out is a value (store.ts): a reader holding one across an await
// must see the stream as it was, never a later transaction's producer entries, committed or
// rolled back.

import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import type { AppendRequest } from "../../protocol/append";
import { createRequest } from "../../protocol/testing-state";
import { inTempDir } from "../../testing/temp-dir";
import { SqliteStore } from "./sqlite-store";

const KEY = "values/s";

const write = (id: string, seq: number, body = `${id}${seq};`): AppendRequest => ({
  contentType: "text/plain",
  messages: [new TextEncoder().encode(body)],
  close: false,
  streamSeq: null,
  producer: { id, epoch: 0, seq },
  incarnation: null,
});

const seqs = (table: Iterable<[string, { lastSeq: number }]>) => Object.fromEntries([...table].map(([id, p]) => [id, p.lastSeq]));

test("a state taken before an append keeps its producers once the append commits", async () => {
  await inTempDir(async (dir) => {
    const store = new SqliteStore({ path: join(dir, "ursa.sqlite"), sync: "full" });
    await store.create(KEY, createRequest({ bucket: "values", name: "s", contentType: "text/plain" }));
    expect((await store.append(KEY, write("p", 0))).kind).toBe("accepted");
    const before = (await store.get(KEY))!;
    expect((await store.append(KEY, write("p", 1))).kind).toBe("accepted");
    expect((await store.append(KEY, write("q", 0))).kind).toBe("accepted");
    expect(seqs(before.producers)).toEqual({ p: 0 });
    expect(seqs(await store.producers(before))).toEqual({ p: 0 });
    const after = (await store.get(KEY))!;
    expect(seqs(after.producers)).toEqual({ p: 1, q: 0 });
    await store.close();
  });
});

test("a rolled-back group commit leaves every state's producers as they were", async () => {
  await inTempDir(async (dir) => {
    const path = join(dir, "ursa.sqlite");
    const batches: number[] = [];
    const store = new SqliteStore({ path, sync: "full", commitObserver: { batch: (writes) => batches.push(writes), sync: () => {} } });
    await store.create(KEY, createRequest({ bucket: "values", name: "s", contentType: "text/plain" }));
    expect((await store.append(KEY, write("p", 0))).kind).toBe("accepted");
    // A second connection makes every log row of producer "boom" fail, as a full disk fails a write.
    const other = new Database(path);
    other.run("CREATE TRIGGER boom BEFORE INSERT ON msgs WHEN NEW.producer_id = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END");
    other.close();
    const before = (await store.get(KEY))!;
    batches.length = 0;
    // Submitted in one turn, the three share a transaction; the failing one rolls it back, and
    // each is then run alone.
    const outcomes = await Promise.allSettled([store.append(KEY, write("p", 1)), store.append(KEY, write("boom", 0)), store.append(KEY, write("q", 0))]);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    // No transaction of more than one write committed: the shared one was rolled back.
    expect(batches).toEqual([1, 1]);
    expect(seqs(before.producers)).toEqual({ p: 0 });
    const after = (await store.get(KEY))!;
    expect(seqs(after.producers)).toEqual({ p: 1, q: 0 });
    // A write that fails alone changes no state either.
    const held = after;
    await expect(store.append(KEY, write("boom", 0))).rejects.toThrow("boom");
    expect(seqs(held.producers)).toEqual({ p: 1, q: 0 });
    expect(seqs((await store.get(KEY))!.producers)).toEqual({ p: 1, q: 0 });
    await store.close();
  });
});
