import { describe, expect, test } from "bun:test";
import type { StreamListQuery, StreamListRow, StreamPage } from "../api/introspection";
import { DEFAULT_VIEW, isFiltered, StreamListModel, toggleSort, viewFromQuery, viewToQuery, withFilter } from "./streamList";

describe("list view and sorting", () => {
  test("a column starts at its natural order, a second click flips it, and the cursor is dropped", () => {
    const byTail = toggleSort({ ...DEFAULT_VIEW, after: "s-0099" }, "tail");
    expect([byTail.sort, byTail.order, byTail.after]).toEqual(["tail", "desc", ""]);
    expect(toggleSort(byTail, "tail").order).toBe("asc");
    expect(toggleSort(byTail, "name").order).toBe("asc");
    expect(toggleSort(toggleSort(DEFAULT_VIEW, "name"), "name").order).toBe("asc");
  });
  test("the URL holds only what differs from the plain list, and reads back the same view", () => {
    expect(viewToQuery(DEFAULT_VIEW)).toEqual({ sort: undefined, order: undefined, prefix: undefined, contains: undefined, status: undefined, producers: undefined, seq: undefined, after: undefined });
    const v = { ...toggleSort(DEFAULT_VIEW, "last_seq"), status: "closed" as const, contains: "ord", after: '["0001","a"]' };
    const q = new URLSearchParams();
    for (const [k, val] of Object.entries(viewToQuery(v))) if (val !== undefined) q.set(k, val);
    expect(q.toString()).toBe("sort=last_seq&contains=ord&status=closed&after=%5B%220001%22%2C%22a%22%5D");
    expect(viewFromQuery(q)).toEqual(v);
  });
  test("unknown values in a hand-edited URL fall back to defaults", () => {
    expect(viewFromQuery(new URLSearchParams("sort=size&order=up&status=gone"))).toEqual(DEFAULT_VIEW);
  });
  test("filters reset the cursor; only the non-prefix ones count as filtering", () => {
    expect(withFilter({ ...DEFAULT_VIEW, after: "x" }, { status: "open" }).after).toBe("");
    expect(isFiltered({ ...DEFAULT_VIEW, prefix: "a" })).toBe(false);
    expect(isFiltered({ ...DEFAULT_VIEW, producers: "with" })).toBe(true);
  });
});

const row = (n: string) => ({ stream_id: n }) as StreamListRow;
const page = (names: string[], more: Partial<StreamPage>): StreamPage => ({
  bucket_id: "b",
  prefix: "",
  total: 10_000,
  total_capped: false,
  streams: names.map(row),
  next_cursor: null,
  has_more: false,
  sort: "name",
  order: "asc",
  scanned: 5000,
  partial: false,
  ...more,
});

describe("loading a page", () => {
  test("partial pages are continued from their cursor until the page fills", async () => {
    const asked: StreamListQuery[] = [];
    const answers = [page(["a"], { partial: true, has_more: true, next_cursor: "c1" }), page(["b", "c"], { has_more: true, next_cursor: "c" })];
    const m = new StreamListModel(async (q) => (asked.push(q), { ok: true, data: answers.shift()! }), 3);
    await m.load({ ...DEFAULT_VIEW, status: "closed" });
    expect(asked.map((q) => [q.after, q.limit, q.status])).toEqual([
      [undefined, 3, "closed"],
      ["c1", 2, "closed"],
    ]);
    expect(m.rows.value.map((r) => r.stream_id)).toEqual(["a", "b", "c"]);
    expect([m.scanned.value, m.stopped.value, m.hasMore.value, m.nextCursor.value]).toEqual([10_000, false, true, "c"]);
  });
  test("after the request limit the page says it stopped, with the cursor to go on", async () => {
    const m = new StreamListModel(async () => ({ ok: true, data: page([], { partial: true, has_more: true, next_cursor: "z" }) }), 100, 2);
    await m.load({ ...DEFAULT_VIEW, contains: "nothing" });
    expect([m.rows.value.length, m.stopped.value, m.nextCursor.value, m.scanned.value]).toEqual([0, true, "z", 10_000]);
  });
  test("a newer load wins over one still in flight", async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const m = new StreamListModel(async (q, signal) => {
      if (q.prefix === "old") await slow;
      if (signal.aborted) return { ok: false, status: 0, message: "aborted" };
      return { ok: true, data: page([q.prefix ?? ""], {}) };
    });
    const first = m.load({ ...DEFAULT_VIEW, prefix: "old" });
    await m.load({ ...DEFAULT_VIEW, prefix: "new" });
    release();
    await first;
    expect(m.rows.value.map((r) => r.stream_id)).toEqual(["new"]);
  });
  test("an error is kept as text and the last rows stay", async () => {
    const m = new StreamListModel(async () => ({ ok: false, status: 404, code: "BUCKET_NOT_FOUND", message: "bucket not found" }));
    await m.load(DEFAULT_VIEW);
    expect(m.error.value).toBe("404 BUCKET_NOT_FOUND bucket not found");
  });
});
