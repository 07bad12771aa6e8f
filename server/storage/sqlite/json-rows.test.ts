// Packed JSON rows (json-rows.ts): one log row per JSON append, read as its messages everywhere a
// message is the unit (whole-message reads, boundaries, the message index, forks, retention), and
// a database whose JSON rows hold one message each (before schema version 9) reads the same.

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MessageIndexPage } from "../../introspection-api";
import { harness, type Harness } from "../../testing/app-harness";
import { countMessages, jsonMessages, messageEnd, messageLengths, messageStartAt, packRows, ROW_BYTES, startsMessage } from "./json-rows";

const enc = (s: string) => new TextEncoder().encode(s);
const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;

describe("the bytes of a packed row", () => {
  const row = enc('{"a":1}\n"x\\ny"\n[2]\n');
  // Boundaries: 0, 8 ("x\ny" escapes its LF), 15, 19.
  test("boundaries are the bytes after its LFs, never inside an escaped one", () => {
    expect([0, 8, 15].map((i) => messageEnd(row, i))).toEqual([8, 15, 19]);
    expect([0, 3, 8, 9, 14, 15, 18].map((i) => messageStartAt(row, i))).toEqual([0, 0, 8, 8, 8, 15, 15]);
    expect([...Array(row.length + 1).keys()].filter((i) => startsMessage(row, i))).toEqual([0, 8, 15]);
    expect(countMessages(row)).toBe(3);
    expect(messageLengths(row)).toEqual([8, 7, 4]);
    expect(messageLengths(row, 8, 15)).toEqual([7]);
    const messages = [enc('{"a":1}\n'), enc('"x\\ny"\n'), enc("[2]\n")];
    expect(packRows(messages)).toEqual([{ data: row, count: 3 }]);
    // Up to the bound a row; a message larger than it alone.
    expect(packRows(messages, 15)).toEqual([{ data: row.subarray(0, 15), count: 2 }, { data: row.subarray(15), count: 1 }]);
    expect(packRows(messages, 5).map((r) => r.count)).toEqual([1, 1, 1]);
    expect(packRows(messages, 5)[0]!.data).toBe(messages[0]!);
  });

  test("a whole-message slice splits rows, holds at least one message, and stops at a gap", () => {
    const rows = [
      { start: 0, data: row },
      { start: 19, data: enc("7\n") },
      { start: 40, data: enc("8\n") },
    ];
    const text = (s: { chunks: Uint8Array[]; end: number }) => ({ chunks: s.chunks.map((c) => new TextDecoder().decode(c)), end: s.end });
    expect(text(jsonMessages(rows, 8, 16))).toEqual({ chunks: ['"x\\ny"\n'], end: 15 });
    expect(text(jsonMessages(rows, 8, 9))).toEqual({ chunks: ['"x\\ny"\n'], end: 15 });
    expect(text(jsonMessages(rows, 15, 1000))).toEqual({ chunks: ["[2]\n", "7\n"], end: 21 });
  });
});

describe("a JSON stream's log", () => {
  let h: Harness;
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ursa-json-rows-"));
    path = join(dir, "ursa.sqlite");
    h = harness({ path, materializeEveryMs: 0 });
  });
  afterEach(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const post = (p: string, body: string) => h.request("POST", p, { headers: J, body });
  const values = async (p: string, offset: string) => {
    const res = await h.request("GET", `${p}?offset=${offset}`);
    expect(res.status).toBe(200);
    return res.json();
  };
  const index = async (p: string, query: string) => {
    const res = await h.request("GET", `/__ursula/api/streams${p}/messages?${query}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as MessageIndexPage).messages.map((m) => [m.offset, m.size]);
  };
  /** Log rows per stream id, and the data of each, as a second connection sees them. */
  async function rows(): Promise<{ stream: number; start: number; n: number | null; data: string }[]> {
    await h.store.reclaimed();
    const db = new Database(path, { readonly: true });
    try {
      return db
        .query<{ stream: number; start: number; n: number | null; data: Uint8Array }, []>("SELECT stream_id AS stream, start, n, data FROM msgs ORDER BY id")
        .all()
        .map((r) => ({ ...r, data: new TextDecoder().decode(r.data) }));
    } finally {
      db.close();
    }
  }

  // Messages 1..5 at offsets 0,2,4,6,8 (each "k\n"), one append; then 6 and 7 at 10 and 12.
  beforeEach(async () => {
    expect((await h.request("PUT", "/test-b/j", { headers: J })).status).toBe(201);
    expect((await post("/test-b/j", "[1,2,3,4,5]")).status).toBe(204);
    expect((await post("/test-b/j", "[6,7]")).status).toBe(204);
  });

  test("an append of several messages is one row; reads, boundaries and the index see its messages", async () => {
    expect(await rows()).toEqual([
      { stream: 1, start: 0, n: 5, data: "1\n2\n3\n4\n5\n" },
      { stream: 1, start: 10, n: 7, data: "6\n7\n" },
    ]);
    for (let k = 0; k < 7; k++) expect(await values("/test-b/j", at(2 * k))).toEqual([1, 2, 3, 4, 5, 6, 7].slice(k));
    const inside = await h.request("GET", `/test-b/j?offset=${at(3)}`);
    expect(inside.status).toBe(400);
    expect(((await inside.json()) as { error: { code: string } }).error.code).toBe("INVALID_OFFSET");
    const state = (await h.store.get("test-b/j"))!;
    expect(state.messageCount).toBe(7);
    // A whole-message read of at least one message stops at the message that would pass the limit.
    const slice = await h.store.readRange(state, 2, 5, true);
    expect([slice.chunks.map((c) => new TextDecoder().decode(c)), slice.end]).toEqual([["2\n", "3\n"], 6]);
    expect(await index("/test-b/j", "from=0")).toEqual([0, 2, 4, 6, 8, 10, 12].map((o) => [o, 2]));
    expect(await index("/test-b/j", "from=4&limit=2")).toEqual([[4, 2], [6, 2]]);
    expect(await index("/test-b/j", `before=${at(12)}&limit=3`)).toEqual([[6, 2], [8, 2], [10, 2]]);
    expect(await index("/test-b/j", `before=${at(6)}`)).toEqual([[0, 2], [2, 2], [4, 2]]);
    // From inside a message, the index starts at the message holding it; a search refuses it.
    expect(await index("/test-b/j", "from=3&limit=2")).toEqual([[2, 2], [4, 2]]);
    expect((await h.request("GET", "/__ursula/api/streams/test-b/j/search?from=3&q=1")).status).toBe(400);
    expect((await h.request("GET", "/__ursula/api/streams/test-b/j/search?from=4&q=1")).status).toBe(200);
  });

  test("an append past ROW_BYTES is split into rows at message boundaries; its guards ride on the last", async () => {
    // 1,000 messages of 100 bytes each (97 of text, the quotes and the LF): 655 fit in a row.
    const big = Array.from({ length: 1000 }, (_, i) => String(i).padStart(97, "x"));
    const res = await h.request("POST", "/test-b/j", { headers: { ...J, "Stream-Seq": "a" }, body: JSON.stringify(big) });
    expect(res.status).toBe(204);
    await h.store.reclaimed();
    const db = new Database(path, { readonly: true });
    const stored = db
      .query<{ start: number; len: number; n: number; seq: string | null }, []>("SELECT start, length(data) AS len, n, stream_seq AS seq FROM msgs WHERE start >= 14 ORDER BY id")
      .all();
    db.close();
    const per = Math.floor(ROW_BYTES / 100);
    expect(stored).toEqual([
      { start: 14, len: per * 100, n: 7 + per, seq: null },
      { start: 14 + per * 100, len: (1000 - per) * 100, n: 1007, seq: "a" },
    ]);
    // Reads on each side of the row boundary and across it.
    for (const k of [per - 1, per, per + 1]) expect(((await values("/test-b/j", at(14 + k * 100))) as string[])[0]).toBe(big[k]);
    const state = (await h.store.get("test-b/j"))!;
    const across = await h.store.readRange(state, 14 + (per - 1) * 100, 250, true);
    expect([across.chunks.length, across.end]).toEqual([2, 14 + (per + 1) * 100]);
  });

  test("a fork inside a packed append copies that append's prefix as one row, and reads exact at any depth and after deletes", async () => {
    const fork = (p: string, source: string, offset: number, sub: number) =>
      h.request("PUT", p, { headers: { "Stream-Forked-From": source, "Stream-Fork-Offset": at(offset), "Stream-Fork-Sub-Offset": String(sub) } });
    expect((await fork("/test-b/f", "/test-b/j", 0, 3)).status).toBe(201);
    expect((await post("/test-b/f", "[8]")).status).toBe(204);
    expect((await fork("/test-b/g", "/test-b/f", 8, 0)).status).toBe(201);
    expect((await post("/test-b/g", "[9,10]")).status).toBe(204);
    const f = (await h.store.get("test-b/f"))!;
    const g = (await h.store.get("test-b/g"))!;
    expect([f.messageCount, g.messageCount]).toEqual([4, 6]);
    expect((await rows()).filter((r) => r.stream !== 1)).toEqual([
      { stream: f.id, start: 0, n: 3, data: "1\n2\n3\n" },
      { stream: f.id, start: 6, n: 4, data: "8\n" },
      { stream: g.id, start: 8, n: 6, data: "9\n10\n" },
    ]);
    const check = async (fDeleted = false) => {
      if (!fDeleted) for (const [k, o] of [0, 2, 4, 6].entries()) expect(await values("/test-b/f", at(o))).toEqual([1, 2, 3, 8].slice(k));
      for (const [k, o] of [0, 2, 4, 6, 8, 10].entries()) expect(await values("/test-b/g", at(o))).toEqual([1, 2, 3, 8, 9, 10].slice(k));
      expect(await index("/test-b/g", "from=0")).toEqual([[0, 2], [2, 2], [4, 2], [6, 2], [8, 2], [10, 3]]);
      expect(await index("/test-b/g", `before=${at(10)}&limit=3`)).toEqual([[4, 2], [6, 2], [8, 2]]);
    };
    await check();
    expect((await h.request("DELETE", "/test-b/j")).status).toBe(204);
    await check();
    expect((await h.request("DELETE", "/test-b/f")).status).toBe(204);
    await check(true);
    // g reads its own row and f's copy, which it reaches; the source's rows are gone.
    expect((await rows()).map((r) => r.stream).sort()).toEqual([f.id, f.id, g.id]);
    expect((await h.request("DELETE", "/test-b/g")).status).toBe(204);
    expect(await rows()).toEqual([]);
  });

  test("a floor inside a packed row keeps it; rows wholly below go; reads start at the floor", async () => {
    expect((await post("/test-b/j", "[8]")).status).toBe(204);
    for (const floor of [4, 12]) {
      expect((await h.request("PUT", `/test-b/j/snapshot/${at(floor)}`, { headers: J, body: "{}" })).status).toBe(204);
      expect((await h.request("PUT", `/test-b/j/retention/${at(floor)}`)).status).toBe(204);
      expect((await h.request("GET", `/test-b/j?offset=${at(floor - 2)}`)).status).toBe(410);
      expect(await values("/test-b/j", at(floor))).toEqual([3, 4, 5, 6, 7, 8].slice((floor - 4) / 2));
      expect((await index("/test-b/j", "from=0"))[0]).toEqual([floor, 2]);
    }
    // Floor 4 kept the first row; floor 12 falls inside the second, which stays, and frees the first.
    expect((await rows()).map((r) => r.start)).toEqual([10, 14]);
  });

  test("rows of one message each, as schema version 8 wrote them, read the same beside new packed rows", async () => {
    const id = (await h.store.get("test-b/j"))!.id;
    await h.close();
    // Version 8's log: the first append as five rows, one per message, each with the count after it.
    const db = new Database(path);
    db.transaction(() => {
      const first = db.query<{ id: number; seg: number; at_ms: number }, []>("SELECT id, seg, at_ms FROM msgs WHERE start = 0").get()!;
      const next = db.query<{ id: number }, []>("SELECT max(id) + 1 AS id FROM msgs").get()!.id;
      db.run("DELETE FROM msgs WHERE id = ?", [first.id]);
      db.run("DELETE FROM msg_index WHERE stream_id = ? AND start = 0", [id]);
      for (let k = 0; k < 5; k++) {
        db.run("INSERT INTO msgs (id, stream_id, start, seg, data, n, at_ms) VALUES (?, ?, ?, 0, ?, ?, ?)", [next + k, id, 2 * k, enc(`${k + 1}\n`), k + 1, first.at_ms]);
        db.run("INSERT INTO msg_index (stream_id, start, msg_id) VALUES (?, ?, ?)", [id, 2 * k, next + k]);
      }
      db.run("UPDATE meta SET value = (SELECT max(id) FROM msgs) WHERE key = 'indexed_upto'");
      db.run("ALTER TABLE msgs DROP COLUMN flen");
      db.run("DROP TABLE msg_files");
      db.run("UPDATE meta SET value = '8' WHERE key = 'schema_version'");
    })();
    db.close();
    h = harness({ path, materializeEveryMs: 0 });
    expect((await post("/test-b/j", "[8,9]")).status).toBe(204);
    for (let k = 0; k < 9; k++) expect(await values("/test-b/j", at(2 * k))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].slice(k));
    expect((await h.request("GET", `/test-b/j?offset=${at(3)}`)).status).toBe(400);
    expect(await index("/test-b/j", `from=${2}&limit=6`)).toEqual([2, 4, 6, 8, 10, 12].map((o) => [o, 2]));
    expect((await h.store.get("test-b/j"))!.messageCount).toBe(9);
    const fork = await h.request("PUT", "/test-b/f", { headers: { "Stream-Forked-From": "/test-b/j", "Stream-Fork-Offset": at(0), "Stream-Fork-Sub-Offset": "2" } });
    expect(fork.status).toBe(201);
    expect(await values("/test-b/f", at(0))).toEqual([1, 2]);
    expect((await h.store.get("test-b/f"))!.messageCount).toBe(2);
    // Old rows are copied as they are, each with the fork's count after it.
    const f = (await h.store.get("test-b/f"))!.id;
    expect((await rows()).filter((r) => r.stream === f)).toEqual([
      { stream: f, start: 0, n: 1, data: "1\n" },
      { stream: f, start: 2, n: 2, data: "2\n" },
    ]);
  });
});
