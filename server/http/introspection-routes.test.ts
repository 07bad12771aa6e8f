// The console's introspection API in-process: sorted and filtered stream lists paged by cursor,
// fork families, the message index (including rows not yet indexed), seek by time, and search.

import { afterEach, describe, expect, test } from "bun:test";
import type { ForkNode, ForkTree, MessageIndexPage, VisibleForkNode, SearchPage, StreamPage, StreamSortKey } from "../introspection-api";
import { SCAN_BUDGET } from "../storage/introspection";
import { harness, type Harness } from "../testing/app-harness";

let h: Harness;
afterEach(() => h.close());

const json = { "Content-Type": "application/json" };
const pad = (n: number) => String(n).padStart(20, "0");

async function put(path: string, headers: Record<string, string> = json, body?: string) {
  const res = await h.request("PUT", path, { headers, body });
  expect(res.status).toBe(201);
  return res;
}
async function post(path: string, body: string, headers: Record<string, string> = {}) {
  return h.request("POST", path, { headers: { ...json, ...headers }, body });
}
async function get<T>(path: string): Promise<T> {
  const res = await h.request("GET", path);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** A fork node that must be one this request can see. */
function shown(n: ForkNode): VisibleForkNode {
  if (n.hidden) throw new Error("expected a visible fork node, got a hidden one");
  return n;
}

/** Every page of a listing, following next_cursor. */
async function allPages(base: string, limit: number): Promise<StreamPage[]> {
  const pages: StreamPage[] = [];
  let after: string | null = null;
  for (;;) {
    const q = new URLSearchParams(base);
    q.set("limit", String(limit));
    if (after !== null) q.set("after", after);
    const page: StreamPage = await get<StreamPage>(`/__ursula/api/buckets/brws/streams?${q}`);
    pages.push(page);
    if (!page.has_more) return pages;
    after = page.next_cursor;
  }
}

describe("stream list: sort, filter, page", () => {
  /** 12 streams with distinct tails, some written with Stream-Seq, producers, some closed, some never written. */
  async function seed() {
    h = harness({ materializeEveryMs: 0 });
    for (let i = 0; i < 12; i++) {
      const name = `s-${String(i).padStart(2, "0")}`;
      h.clock.now += 1000;
      await put(`/brws/${name}`);
      if (i % 4 === 3) continue; // never written: last write and Stream-Seq stay null
      h.clock.now += 10;
      // Tails in an order unlike the names': (i * 7) % 12 + 1 messages.
      const n = ((i * 7) % 12) + 1;
      const headers: Record<string, string> = i % 2 === 0 ? { "Stream-Seq": pad(100 - i) } : {};
      if (i % 3 === 0) Object.assign(headers, { "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": "0" });
      const res = await post(`/brws/${name}`, JSON.stringify(Array.from({ length: n }, (_, k) => k)), headers);
      expect(res.status).toBeLessThan(300);
      if (i === 5 || i === 6) expect((await h.request("POST", `/brws/${name}`, { headers: { "Stream-Closed": "true" } })).status).toBe(204);
    }
  }

  test("every sort pages through every stream exactly once, in the sort's order, both ways", async () => {
    await seed();
    const full = (await get<StreamPage>("/__ursula/api/buckets/brws/streams?limit=1000")).streams;
    expect(full.length).toBe(12);
    const key: Record<StreamSortKey, (r: (typeof full)[number]) => string | number | null> = {
      name: (r) => r.stream_id,
      created: (r) => r.created_at_ms,
      tail: (r) => r.tail_offset,
      last_write: (r) => r.last_write_at_ms,
      last_seq: (r) => r.last_stream_seq,
    };
    for (const sort of Object.keys(key) as StreamSortKey[]) {
      for (const order of ["asc", "desc"] as const) {
        const pages = await allPages(`sort=${sort}&order=${order}`, 5);
        const names = pages.flatMap((p) => p.streams.map((s) => s.stream_id));
        // SQLite's order: NULL first ascending, then values bytewise/numerically, ties by name.
        const cmp = (a: (typeof full)[number], b: (typeof full)[number]) => {
          const x = key[sort](a);
          const y = key[sort](b);
          if (x === y) return a.stream_id < b.stream_id ? -1 : a.stream_id > b.stream_id ? 1 : 0;
          if (x === null) return -1;
          if (y === null) return 1;
          return x < y ? -1 : 1;
        };
        const want = [...full].sort(cmp).map((s) => s.stream_id);
        if (order === "desc") want.reverse();
        expect({ sort, order, names }).toEqual({ sort, order, names: want });
        expect(pages.map((p) => p.streams.length)).toEqual([5, 5, 2]);
        expect(pages.every((p) => p.sort === sort && p.order === order && p.total === 12 && !p.partial)).toBe(true);
      }
    }
  });

  test("rows carry the guards' state: last Stream-Seq, producers, closed, incarnation", async () => {
    await seed();
    const rows = (await get<StreamPage>("/__ursula/api/buckets/brws/streams")).streams;
    const s0 = rows.find((r) => r.stream_id === "s-00")!;
    expect(s0.last_stream_seq).toBe(pad(100));
    expect(s0.producer_count).toBe(1);
    expect(s0.message_count).toBe(1);
    const s5 = rows.find((r) => r.stream_id === "s-05")!;
    expect(s5.status).toBe("Closed");
    expect(s5.last_stream_seq).toBeNull();
    const head = await h.request("HEAD", "/brws/s-05");
    expect(s5.incarnation).toBe(head.headers.get("Stream-Incarnation")!);
    expect(s5.next_offset).toBe(head.headers.get("Stream-Next-Offset")!);
  });

  test("filters: status, producers, Stream-Seq, name contains, prefix with a column sort", async () => {
    await seed();
    const names = async (q: string) => (await get<StreamPage>(`/__ursula/api/buckets/brws/streams?${q}`)).streams.map((s) => s.stream_id);
    expect(await names("status=closed")).toEqual(["s-05", "s-06"]);
    expect(await names("producers=with")).toEqual(["s-00", "s-06", "s-09"]);
    expect(await names("seq=set&status=open")).toEqual(["s-00", "s-02", "s-04", "s-08", "s-10"]);
    expect(await names("contains=S-1")).toEqual(["s-10", "s-11"]);
    // s-05 holds 26 bytes, s-01 16, s-09 8; s-03 and s-07 were never written (ties go by name).
    expect(await names("prefix=s-0&sort=tail&order=desc&seq=unset")).toEqual(["s-05", "s-01", "s-09", "s-07", "s-03"]);
    const byTail = (await get<StreamPage>("/__ursula/api/buckets/brws/streams?prefix=s-0&sort=tail&order=desc")).streams;
    expect(byTail.every((r) => r.stream_id.startsWith("s-0"))).toBe(true);
    expect(byTail.map((r) => r.tail_offset)).toEqual([...byTail.map((r) => r.tail_offset)].sort((a, b) => b - a));
    const page = await get<StreamPage>("/__ursula/api/buckets/brws/streams?status=closed");
    expect(page.total).toBe(12);
  });

  test("a filter that leaves most streams out stops at the scan budget and says where to go on", async () => {
    h = harness({ materializeEveryMs: 0 });
    const n = SCAN_BUDGET + 50;
    await Promise.all(Array.from({ length: n }, (_, i) => put(`/brws/x-${String(i).padStart(5, "0")}`)));
    await h.request("POST", `/brws/x-${String(n - 1).padStart(5, "0")}`, { headers: { "Stream-Closed": "true" } });
    const first = await get<StreamPage>("/__ursula/api/buckets/brws/streams?status=closed");
    expect(first.streams).toEqual([]);
    expect(first.partial).toBe(true);
    expect(first.has_more).toBe(true);
    expect(first.scanned).toBe(SCAN_BUDGET);
    const second = await get<StreamPage>(`/__ursula/api/buckets/brws/streams?status=closed&after=${encodeURIComponent(first.next_cursor!)}`);
    expect(second.streams.map((s) => s.stream_id)).toEqual([`x-${String(n - 1).padStart(5, "0")}`]);
    expect(second.partial).toBe(false);
    expect(second.has_more).toBe(false);
    expect(second.scanned).toBe(50);
    // Unfiltered, a page looks at no more streams than it returns, plus one to know there are more.
    const plain = await get<StreamPage>("/__ursula/api/buckets/brws/streams?sort=created&order=desc&limit=10");
    expect(plain.scanned).toBe(11);
  });

  test("malformed queries are 400 INVALID_QUERY, a missing bucket 404", async () => {
    h = harness();
    await put("/brws/a");
    for (const q of ["sort=size", "order=up", "status=gone", "limit=0", "sort=tail&after=notjson", 'sort=tail&after=["x","a"]', 'sort=last_seq&after=[1,"a"]']) {
      const res = await h.request("GET", `/__ursula/api/buckets/brws/streams?${q}`);
      expect({ q, status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code }).toEqual({ q, status: 400, code: "INVALID_QUERY" });
    }
    expect((await h.request("GET", "/__ursula/api/buckets/nobucket/streams")).status).toBe(404);
  });

  test("values are the stream's current state even before its row catches up", async () => {
    h = harness();
    await put("/brws/a");
    await post("/brws/a", "[1,2,3]", { "Stream-Seq": pad(0) });
    const row = (await get<StreamPage>("/__ursula/api/buckets/brws/streams?sort=tail")).streams[0]!;
    expect(row.tail_offset).toBe(6);
    expect(row.last_stream_seq).toBe(pad(0));
  });
});

describe("fork families", () => {
  test("the tree runs from the first source down, with fork offsets; a deleted source stays as a node", async () => {
    h = harness();
    await put("/frk1/src");
    await post("/frk1/src", "[1,2]");
    await post("/frk1/src", "[3,4]");
    await put("/frk1/a", { ...json, "Stream-Forked-From": "/frk1/src", "Stream-Fork-Offset": "0000000000000000_0000000000000004" });
    await put("/frk1/b", { ...json, "Stream-Forked-From": "/frk1/src" });
    await post("/frk1/a", "[5]");
    await put("/frk1/a2", { ...json, "Stream-Forked-From": "/frk1/a", "Stream-Fork-Offset": "0000000000000000_0000000000000004" });
    const tree = await get<ForkTree>("/__ursula/api/streams/frk1/a2/forks");
    expect(tree.lineage).toEqual(["/frk1/src", "/frk1/a", "/frk1/a2"]);
    expect(tree.nodes).toBe(4);
    expect(tree.truncated).toBe(false);
    expect(shown(tree.root).path).toBe("/frk1/src");
    expect(shown(tree.root).fork_offset).toBeNull();
    expect(tree.root.children.map(shown).map((c) => [c.path, c.fork_position, c.tail_offset])).toEqual([
      ["/frk1/a", 4, 6],
      ["/frk1/b", 8, 8],
    ]);
    expect(tree.root.children[0]!.children.map(shown).map((c) => [c.path, c.fork_offset])).toEqual([["/frk1/a2", "0000000000000000_0000000000000004"]]);

    // Deleting the source keeps it (soft) while forks share its data.
    expect((await h.request("DELETE", "/frk1/src")).status).toBe(204);
    const after = await get<ForkTree>("/__ursula/api/streams/frk1/b/forks");
    expect(shown(after.root).path).toBe("/frk1/src");
    expect(shown(after.root).deleted).toBe(true);
    expect((await h.request("GET", "/__ursula/api/streams/frk1/src/forks")).status).toBe(404);
  });

  test("a stream that is no fork and has none is a tree of one", async () => {
    h = harness();
    await put("/frk1/lone");
    const tree = await get<ForkTree>("/__ursula/api/streams/frk1/lone/forks");
    expect(tree).toEqual({
      root: { hidden: false, bucket_id: "frk1", stream_id: "lone", path: "/frk1/lone", fork_offset: null, fork_position: null, sub_offset: 0, tail_offset: 0, deleted: false, closed: false, children: [], omitted: 0 },
      lineage: ["/frk1/lone"],
      nodes: 1,
      truncated: false,
    });
  });
});

describe("message index and seek by time", () => {
  async function seed(materializeEveryMs?: number) {
    h = harness({ materializeEveryMs });
    await put("/msgs/s");
    // Three appends at known times: 1 + 2 + 1 messages of 2 bytes each ("1\n").
    for (const [t, body] of [
      [1000, "[1]"],
      [2000, "[2,3]"],
      [3000, "[4]"],
    ] as const) {
      h.clock.now = Date.UTC(2026, 0, 1) + t;
      expect((await post("/msgs/s", body)).status).toBe(204);
    }
  }
  const base = Date.UTC(2026, 0, 1);

  for (const [label, every] of [
    ["not yet indexed", undefined],
    ["indexed", 0],
  ] as const) {
    test(`pages forward, backward and by time (${label})`, async () => {
      await seed(every);
      const all = await get<MessageIndexPage>("/__ursula/api/streams/msgs/s/messages");
      expect(all.messages).toEqual([
        { offset: 0, size: 2, at_ms: base + 1000 },
        { offset: 2, size: 2, at_ms: base + 2000 },
        { offset: 4, size: 2, at_ms: base + 2000 },
        { offset: 6, size: 2, at_ms: base + 3000 },
      ]);
      expect([all.tail_offset, all.has_before, all.has_after]).toEqual([8, false, false]);
      const mid = await get<MessageIndexPage>("/__ursula/api/streams/msgs/s/messages?from=2&limit=2");
      expect(mid.messages.map((m) => m.offset)).toEqual([2, 4]);
      expect([mid.has_before, mid.has_after]).toEqual([true, true]);
      const back = await get<MessageIndexPage>("/__ursula/api/streams/msgs/s/messages?before=0000000000000000_0000000000000006&limit=2");
      expect(back.messages.map((m) => m.offset)).toEqual([2, 4]);
      const seek = async (t: number) => (await get<MessageIndexPage>(`/__ursula/api/streams/msgs/s/messages?at_ms=${base + t}&limit=1`)).messages.map((m) => m.offset);
      expect(await seek(0)).toEqual([0]);
      expect(await seek(1000)).toEqual([0]);
      expect(await seek(1001)).toEqual([2]);
      expect(await seek(2500)).toEqual([6]);
      expect(await seek(3001)).toEqual([]);
      const atTail = await get<MessageIndexPage>(`/__ursula/api/streams/msgs/s/messages?at_ms=${base + 9999}`);
      expect([atTail.has_before, atTail.has_after]).toEqual([true, false]);
    });
  }

  test("a page never lists what retention put out of reach, even before its rows are reclaimed", async () => {
    await seed();
    const floor = "0000000000000000_0000000000000004";
    expect((await h.request("PUT", `/msgs/s/snapshot/${floor}`, { headers: json, body: "{}" })).status).toBe(204);
    expect((await h.request("PUT", `/msgs/s/retention/${floor}`)).status).toBe(204);
    expect((await h.request("GET", "/msgs/s?offset=0000000000000000_0000000000000000")).status).toBe(410);
    const all = await get<MessageIndexPage>("/__ursula/api/streams/msgs/s/messages?from=0");
    expect(all.messages.map((m) => m.offset)).toEqual([4, 6]);
    expect([all.has_before, all.has_after]).toEqual([false, false]);
    const first = await get<MessageIndexPage>("/__ursula/api/streams/msgs/s/messages?limit=1");
    expect(first.messages.map((m) => m.offset)).toEqual([4]);
    expect([first.has_before, first.has_after]).toEqual([false, true]);
    const back = await get<MessageIndexPage>("/__ursula/api/streams/msgs/s/messages?before=0000000000000000_0000000000000006&limit=3");
    expect(back.messages.map((m) => m.offset)).toEqual([4]);
    expect(back.has_before).toBe(false);
    const early = await get<MessageIndexPage>(`/__ursula/api/streams/msgs/s/messages?at_ms=${base}&limit=1`);
    expect(early.messages.map((m) => m.offset)).toEqual([4]);
    // A search from 0 scans from the floor: "1" was the first message, "4" is readable.
    const below = await get<SearchPage>("/__ursula/api/streams/msgs/s/search?q=1&from=0");
    expect([below.matches.length, below.from]).toEqual([0, 4]);
    const above = await get<SearchPage>("/__ursula/api/streams/msgs/s/search?q=4");
    expect(above.matches.map((m) => m.offset)).toEqual([6]);
  });

  test("a byte stream's page starts at the message holding the offset", async () => {
    h = harness();
    await put("/msgs/b", { "Content-Type": "text/plain" }, "hello ");
    await h.request("POST", "/msgs/b", { headers: { "Content-Type": "text/plain" }, body: "world" });
    const page = await get<MessageIndexPage>("/__ursula/api/streams/msgs/b/messages?from=3");
    expect(page.messages.map((m) => [m.offset, m.size])).toEqual([
      [0, 6],
      [6, 5],
    ]);
  });

  test("bad positions are 400; a missing stream 404", async () => {
    await seed();
    for (const q of ["from=x", "from=1&before=2", "at_ms=-5", "limit=2000"]) expect((await h.request("GET", `/__ursula/api/streams/msgs/s/messages?${q}`)).status).toBe(400);
    expect((await h.request("GET", "/__ursula/api/streams/msgs/none/messages")).status).toBe(404);
  });
});

describe("search", () => {
  test("substring (case folded unless asked), JSON field and value, from a position", async () => {
    h = harness();
    await put("/srch/s");
    await post("/srch/s", JSON.stringify([{ type: "Order", id: 1 }, { type: "refund", id: 2 }, { type: "order", id: 3, tags: ["x"] }]));
    const search = (q: string) => get<SearchPage>(`/__ursula/api/streams/srch/s/search?${q}`);
    const offsets = (p: SearchPage) => p.matches.map((m) => m.offset);
    const log = await (await h.request("GET", "/srch/s?offset=-1&format=ndjson")).text();
    // Where each message starts, from the bytes the server holds: one line per message.
    const starts: number[] = [];
    let at = 0;
    for (const line of log.split("\n").slice(0, -1)) {
      starts.push(at);
      at += Buffer.byteLength(line) + 1;
    }
    const all = await search("q=order");
    expect(offsets(all)).toEqual([starts[0]!, starts[2]!]);
    expect(all.done).toBe(true);
    expect(all.scanned_to).toBe(Buffer.byteLength(log));
    expect(all.matches[0]!.preview).toBe('{"type":"Order","id":1}');
    expect(offsets(await search("q=Order&match_case=1"))).toEqual([starts[0]!]);
    expect(offsets(await search("field=id&value=2"))).toEqual([starts[1]!]);
    expect(offsets(await search("field=type&value=ORDER"))).toEqual([starts[0]!, starts[2]!]);
    expect(offsets(await search("field=tags.0&value=x"))).toEqual([starts[2]!]);
    expect(offsets(await search("field=tags"))).toEqual([starts[2]!]);
    expect(offsets(await search(`q=order&from=${starts[1]}`))).toEqual([starts[2]!]);
    const limited = await search("q=id&limit=1");
    expect(offsets(limited)).toEqual([0]);
    expect(limited.scanned_to).toBe(starts[1]!);
    expect(limited.done).toBe(false);
  });

  test("a request scans a bounded number of bytes and says where to go on", async () => {
    h = harness();
    await put("/srch/big", { "Content-Type": "application/octet-stream" });
    const chunk = new Uint8Array(512 * 1024).fill(0x61);
    for (let i = 0; i < 12; i++) await h.request("POST", "/srch/big", { headers: { "Content-Type": "application/octet-stream" }, body: chunk });
    await h.request("POST", "/srch/big", { headers: { "Content-Type": "application/octet-stream" }, body: "needle" });
    const first = await get<SearchPage>("/__ursula/api/streams/srch/big/search?q=needle");
    expect(first.matches).toEqual([]);
    expect(first.done).toBe(false);
    expect(first.scanned_to).toBe(4 * 1024 * 1024);
    const second = await get<SearchPage>(`/__ursula/api/streams/srch/big/search?q=needle&from=${first.scanned_to}`);
    expect(second.matches).toEqual([{ offset: 6 * 1024 * 1024, size: 6, preview: "6e 65 65 64 6c 65" }]);
    expect(second.done).toBe(true);
  });

  test("refusals: no query, field on a byte stream, from inside a message", async () => {
    h = harness();
    await put("/srch/t", { "Content-Type": "text/plain" }, "hello");
    for (const q of ["", "field=a", "q=x&from=2", "q=x&from=99", "field=.a"]) {
      const res = await h.request("GET", `/__ursula/api/streams/srch/t/search?${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
    }
  });
});
