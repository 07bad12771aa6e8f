// Forks by reference (spec §7.4, storage/lineage.ts): a fork stores only its own appends and reads
// below its fork offset through its source, at any depth. Deleting forks and sources in either
// order keeps every remaining reader's bytes exact; retention on a source keeps what a fork reads;
// the rows go once nothing reaches them, and their pages with them.

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness, type Harness } from "../testing/app-harness";

const T = { "Content-Type": "text/plain" };
const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
let h: Harness;
let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ursa-fork-"));
  path = join(dir, "ursa.sqlite");
  h = harness({ path, longPollTimeoutMs: 2000 });
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const put = (p: string, headers: Record<string, string>, body?: string) => h.request("PUT", p, { headers, body });
const post = (p: string, body: string, headers: Record<string, string> = T) => h.request("POST", p, { headers, body });
const text = async (p: string, offset = "-1") => (await h.request("GET", `${p}?offset=${offset}`)).text();
const fork = (p: string, source: string, offset: number | null, extra: Record<string, string> = {}) =>
  put(p, { "Stream-Forked-From": source, ...(offset === null ? {} : { "Stream-Fork-Offset": at(offset) }), ...extra });

/** Rows, their owners and the file's pages, as a second connection sees them after the reclaimer. */
async function stored(): Promise<{ rows: Map<number, number>; pages: number; free: number }> {
  await h.store.reclaimed();
  const db = new Database(path, { readonly: true });
  try {
    const rows = new Map(db.query<{ id: number; n: number }, []>("SELECT stream_id AS id, count(*) AS n FROM msgs GROUP BY stream_id").all().map((r) => [r.id, r.n]));
    const pages = db.query<{ n: number }, []>("SELECT page_count AS n FROM pragma_page_count()").get()!.n;
    const free = db.query<{ n: number }, []>("SELECT freelist_count AS n FROM pragma_freelist_count()").get()!.n;
    return { rows, pages, free };
  } finally {
    db.close();
  }
}

const idOf = async (key: string) => (await h.store.get(key))!.id;

describe("reading a fork", () => {
  beforeEach(async () => {
    expect((await put("/test-b/s", T, "alpha")).status).toBe(201);
    for (const word of ["beta", "gamma", "delta"]) expect((await post("/test-b/s", word)).status).toBe(204);
  });

  test("stores none of its source's rows, and reads them through at every offset across the fork point", async () => {
    expect((await fork("/test-b/f", "/test-b/s", 14, { "Stream-Fork-Sub-Offset": "2" })).status).toBe(201);
    expect((await post("/test-b/f", "!!")).status).toBe(204);
    expect((await post("/test-b/s", "later")).status).toBe(204);
    const own = (await stored()).rows.get(await idOf("test-b/f"));
    // The sub-offset's prefix ("de") is its own first message, then its append; nothing else.
    expect(own).toBe(2);
    const whole = "alphabetagammade!!";
    for (let offset = 0; offset <= whole.length; offset++) expect(await text("/test-b/f", at(offset))).toBe(whole.slice(offset));
    const capped = await h.request("GET", `/test-b/f?offset=${at(3)}&max_bytes=8`);
    expect(await capped.text()).toBe("habetaga");
    expect(capped.headers.get("Stream-Next-Offset")).toBe(at(11));
  });

  test("a fork of a fork of a fork reads through every level, above and below the levels' fork points", async () => {
    expect((await fork("/test-b/f1", "/test-b/s", 9)).status).toBe(201);
    expect((await post("/test-b/f1", "one")).status).toBe(204);
    expect((await fork("/test-b/f2", "/test-b/f1", 12)).status).toBe(201);
    expect((await post("/test-b/f2", "two")).status).toBe(204);
    // Below f1's own fork point: read from the first source directly.
    expect((await fork("/test-b/f3", "/test-b/f2", 5)).status).toBe(201);
    expect((await post("/test-b/f3", "three")).status).toBe(204);
    expect((await fork("/test-b/f4", "/test-b/f2", 15)).status).toBe(201);
    expect((await post("/test-b/f4", "four")).status).toBe(204);
    expect(await text("/test-b/f2")).toBe("alphabetaonetwo");
    expect(await text("/test-b/f3")).toBe("alphathree");
    expect(await text("/test-b/f4")).toBe("alphabetaonetwofour");
    expect(await text("/test-b/f4", at(7))).toBe("taonetwofour");
  });

  test("JSON: a page spanning the fork point is one array, whole messages, with the count carried on", async () => {
    expect((await put("/test-b/j", J, '[{"a":1},{"a":2}]')).status).toBe(201);
    expect((await post("/test-b/j", '[{"a":3},{"a":4}]', J)).status).toBe(204);
    const secondAppend = (await h.store.get("test-b/j"))!.tail - Buffer.byteLength('{"a":3}\n{"a":4}\n');
    expect((await fork("/test-b/jf", "/test-b/j", secondAppend, { "Stream-Fork-Sub-Offset": "1" })).status).toBe(201);
    expect((await post("/test-b/jf", '{"b":1}', J)).status).toBe(204);
    expect(await (await h.request("GET", "/test-b/jf?offset=-1")).json()).toEqual([{ a: 1 }, { a: 2 }, { a: 3 }, { b: 1 }]);
    expect((await h.store.get("test-b/jf"))!.messageCount).toBe(4);
    const inside = await h.request("GET", `/test-b/jf?offset=${at(Buffer.byteLength('{"a":1}\n'))}`);
    expect(await inside.json()).toEqual([{ a: 2 }, { a: 3 }, { b: 1 }]);
  });

  test("the console's message index pages through the inherited messages and the fork's own, both ways", async () => {
    expect((await fork("/test-b/f", "/test-b/s", 9)).status).toBe(201);
    expect((await post("/test-b/f", "mine")).status).toBe(204);
    const state = (await h.store.get("test-b/f"))!;
    const offsets = (page: { messages: { offset: number }[] }) => page.messages.map((m) => m.offset);
    expect(offsets(await h.store.introspection.messageIndex(state, { from: 0 }, 10))).toEqual([0, 5, 9]);
    expect(offsets(await h.store.introspection.messageIndex(state, { from: 6 }, 2))).toEqual([5, 9]);
    const last = await h.store.introspection.messageIndex(state, { before: state.tail }, 2);
    expect(offsets(last)).toEqual([5, 9]);
    expect(last.hasBefore).toBe(true);
  });

  test("a long-poll in the inherited range answers at once; at the fork's tail it wakes on the fork's own append only", async () => {
    expect((await fork("/test-b/f", "/test-b/s", 9)).status).toBe(201);
    const inherited = await h.request("GET", `/test-b/f?offset=${at(2)}&live=long-poll`);
    expect(await inherited.text()).toBe("phabeta");
    const waiting = h.request("GET", `/test-b/f?offset=${at(9)}&live=long-poll`);
    await Bun.sleep(20);
    expect((await post("/test-b/s", "not-seen")).status).toBe(204);
    expect((await post("/test-b/f", "mine")).status).toBe(204);
    expect(await (await waiting).text()).toBe("mine");
  });

  test("SSE from the start delivers the inherited bytes and the fork's own, then up-to-date", async () => {
    expect((await fork("/test-b/f", "/test-b/s", 9)).status).toBe(201);
    expect((await post("/test-b/f", "mine")).status).toBe(204);
    const ac = new AbortController();
    const res = await h.request("GET", "/test-b/f?offset=-1&live=sse", { signal: ac.signal });
    const reader = res.body!.getReader();
    let seen = "";
    while (!seen.includes('"upToDate":true')) seen += new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    expect(seen).toContain("data:alphabeta");
    expect(seen).toContain("mine");
  });
});

describe("deleting forks and sources", () => {
  const FILL = "x".repeat(64 * 1024);

  beforeEach(async () => {
    expect((await put("/test-b/s", T)).status).toBe(201);
    for (let i = 0; i < 64; i++) expect((await post("/test-b/s", FILL)).status).toBe(204);
  });

  test("fork first, then source: the source reads exactly until deleted; then every row and its pages are gone", async () => {
    const source = await idOf("test-b/s");
    const baseline = await stored();
    expect((await fork("/test-b/f", "/test-b/s", 32 * FILL.length)).status).toBe(201);
    expect((await post("/test-b/f", "mine")).status).toBe(204);
    const fork1 = await idOf("test-b/f");
    expect((await h.request("DELETE", "/test-b/f")).status).toBe(204);
    expect((await text("/test-b/s")).length).toBe(64 * FILL.length);
    const afterFork = await stored();
    expect(afterFork.rows.get(fork1)).toBeUndefined();
    expect(afterFork.rows.get(source)).toBe(64);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    const gone = await stored();
    expect(gone.rows.size).toBe(0);
    // The 4 MiB of messages left in pages given back to the file system (incremental vacuum) or free.
    expect(gone.pages - gone.free).toBeLessThan(baseline.pages - baseline.free - 900);
  });

  test("source first: it is soft-deleted, its fork reads exactly, the rows above the fork point go; the fork's delete takes the rest", async () => {
    const source = await idOf("test-b/s");
    expect((await fork("/test-b/f", "/test-b/s", 16 * FILL.length)).status).toBe(201);
    expect((await post("/test-b/f", "mine")).status).toBe(204);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    expect((await h.request("GET", "/test-b/s")).status).toBe(410);
    const soft = await stored();
    // Only the 16 messages the fork reads stay of the source.
    expect(soft.rows.get(source)).toBe(16);
    const body = await text("/test-b/f");
    expect(body.length).toBe(16 * FILL.length + 4);
    expect(body.endsWith("xmine")).toBe(true);
    expect((await h.request("DELETE", "/test-b/f")).status).toBe(204);
    expect((await stored()).rows.size).toBe(0);
  });

  test("a chain deleted from the middle keeps both ends exact, and restarts read the same", async () => {
    expect((await fork("/test-b/f1", "/test-b/s", 8 * FILL.length)).status).toBe(201);
    expect((await post("/test-b/f1", "one")).status).toBe(204);
    expect((await fork("/test-b/f2", "/test-b/f1", 8 * FILL.length + 3)).status).toBe(201);
    expect((await post("/test-b/f2", "two")).status).toBe(204);
    expect((await h.request("DELETE", "/test-b/f1")).status).toBe(204);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    const expected = FILL.repeat(8) + "onetwo";
    expect(await text("/test-b/f2")).toBe(expected);
    await h.close();
    h = harness({ path });
    expect(await text("/test-b/f2")).toBe(expected);
    expect((await h.request("DELETE", "/test-b/f2")).status).toBe(204);
    expect((await stored()).rows.size).toBe(0);
    expect((await put("/test-b/s", T)).status).toBe(201);
  });
});

describe("retention on a source with forks (spec §7.2)", () => {
  beforeEach(async () => {
    expect((await put("/test-b/s", T, "aaaa")).status).toBe(201);
    for (const word of ["bbbb", "cccc", "dddd"]) expect((await post("/test-b/s", word)).status).toBe(204);
    expect((await h.request("PUT", `/test-b/s/snapshot/${at(12)}`, { headers: T, body: "snap" })).status).toBe(204);
  });

  test("rows a fork still reads stay, hidden from the source; they go once the fork lets go of them", async () => {
    const source = await idOf("test-b/s");
    expect((await fork("/test-b/f", "/test-b/s", 8)).status).toBe(201);
    expect((await h.request("PUT", `/test-b/s/retention/${at(12)}`)).status).toBe(204);
    expect((await h.request("GET", `/test-b/s?offset=${at(4)}`)).status).toBe(410);
    expect(await text("/test-b/s", at(12))).toBe("dddd");
    expect(await text("/test-b/f")).toBe("aaaabbbb");
    expect((await stored()).rows.get(source)).toBe(4);
    // The fork's own floor rises past what it reads of the source: that row is free to go.
    expect((await h.request("PUT", `/test-b/f/snapshot/${at(4)}`, { headers: T, body: "s" })).status).toBe(204);
    expect((await h.request("PUT", `/test-b/f/retention/${at(4)}`)).status).toBe(204);
    expect(await text("/test-b/f", at(4))).toBe("bbbb");
    expect((await stored()).rows.get(source)).toBe(3);
    expect((await h.request("DELETE", "/test-b/f")).status).toBe(204);
    expect((await stored()).rows.get(source)).toBe(1);
  });

  test("a fork inherits the floor at its creation and reads from it", async () => {
    expect((await h.request("PUT", `/test-b/s/retention/${at(4)}`)).status).toBe(204);
    expect((await fork("/test-b/f", "/test-b/s", 12)).status).toBe(201);
    expect((await h.request("GET", "/test-b/f?offset=-1")).status).toBe(410);
    expect(await text("/test-b/f", at(4))).toBe("bbbbcccc");
  });
});

describe("forks made before schema version 7", () => {
  test("a fork that copied its source's rows reads its own copies after the upgrade, with its source's rows gone", async () => {
    expect((await put("/test-b/s", T, "old")).status).toBe(201);
    expect((await post("/test-b/s", "data")).status).toBe(204);
    expect((await fork("/test-b/f", "/test-b/s", 3)).status).toBe(201);
    expect((await post("/test-b/f", "!")).status).toBe(204);
    const [source, forked] = [await idOf("test-b/s"), await idOf("test-b/f")];
    await h.close();
    // What version 6 left: the fork's own copy of "old", and a soft-deleted source without rows.
    const db = new Database(path);
    // The closed store's checkpoint thread may still be letting go of the file.
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec(`DROP INDEX streams_fork_copied; ALTER TABLE streams DROP COLUMN fork_copied; DROP TABLE dropped_streams;
      ALTER TABLE snapshot_blobs DROP COLUMN in_file; ALTER TABLE msgs DROP COLUMN flen; DROP TABLE msg_files;
      INSERT INTO msgs (stream_id, start, seg, data) SELECT ${forked}, start, seg, data FROM msgs WHERE stream_id = ${source} AND start < 3;
      INSERT INTO msg_index (stream_id, start, msg_id) SELECT stream_id, start, id FROM msgs WHERE stream_id = ${forked} AND start < 3;
      DELETE FROM msg_index WHERE stream_id = ${source}; DELETE FROM msgs WHERE stream_id = ${source};
      UPDATE streams SET soft_deleted = 1 WHERE id = ${source}; UPDATE meta SET value = '6' WHERE key = 'schema_version';
      UPDATE meta SET value = (SELECT max(id) FROM msgs) WHERE key = 'indexed_upto';`);
    db.close();
    h = harness({ path });
    expect(await text("/test-b/f")).toBe("old!");
    expect((await fork("/test-b/g", "/test-b/f", 3)).status).toBe(201);
    expect((await post("/test-b/g", "?")).status).toBe(204);
    expect(await text("/test-b/g")).toBe("old?");
    expect((await h.request("DELETE", "/test-b/f")).status).toBe(204);
    expect(await text("/test-b/g")).toBe("old?");
  });
});
