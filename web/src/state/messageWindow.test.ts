import { describe, expect, test } from "bun:test";
import { MessageWindow, PAGE_MESSAGES } from "./messageWindow";
import { fakeStream } from "./testing/fakeStream";
import { exportFileName, readRange } from "./exportRange";
import { SearchModel } from "./search";
import type { SearchPage } from "../api/introspection";

const texts = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ n: i }));

describe("message window: open, grow, cap", () => {
  test("opens at the oldest with one page, cut exactly at the index's sizes", async () => {
    const s = fakeStream(texts(500));
    const w = new MessageWindow(s.deps, "json");
    await w.open({ kind: "oldest" });
    expect(w.rows.value.length).toBe(PAGE_MESSAGES);
    expect(w.rows.value[0]).toEqual({ offset: 0, size: 8, atMs: 1000, text: '{"n":0}' });
    expect(w.rows.value[199]!.text).toBe('{"n":199}');
    expect([w.hasBefore.value, w.hasAfter.value, w.selected.value]).toEqual([false, true, 0]);
    // One index request and one read of exactly the page's bytes.
    expect(s.calls.read).toEqual([[0, s.metas[200]!.offset]]);
  });
  test("grows forward and backward; never holds more than its cap, dropping the far end", async () => {
    const s = fakeStream(texts(1000));
    const w = new MessageWindow(s.deps, "json", 450);
    await w.open({ kind: "offset", position: s.metas[500]!.offset });
    expect(w.rows.value[0]!.text).toBe('{"n":500}');
    expect(w.hasBefore.value).toBe(true);
    await w.loadAfter();
    await w.loadAfter();
    expect(w.rows.value.length).toBe(450);
    expect([w.rows.value[0]!.text, w.rows.value[449]!.text]).toEqual(['{"n":550}', '{"n":999}']);
    expect([w.hasBefore.value, w.hasAfter.value]).toEqual([true, false]);
    await w.loadBefore();
    expect(w.rows.value.length).toBe(450);
    expect([w.rows.value[0]!.text, w.rows.value[449]!.text]).toEqual(['{"n":350}', '{"n":799}']);
    expect(w.hasAfter.value).toBe(true);
    // Consecutive: every row starts where the one before it ended.
    expect(w.rows.value.every((m, i, a) => i === 0 || a[i - 1]!.offset + a[i - 1]!.size === m.offset)).toBe(true);
  });
  test("the newest page ends at the tail and selects the last message", async () => {
    const s = fakeStream(texts(300));
    const w = new MessageWindow(s.deps, "json");
    await w.open({ kind: "newest" });
    expect(w.rows.value.length).toBe(PAGE_MESSAGES);
    expect(w.rows.value[w.rows.value.length - 1]!.text).toBe('{"n":299}');
    expect(w.selected.value).toBe(s.metas[299]!.offset);
    expect([w.hasBefore.value, w.hasAfter.value]).toEqual([true, false]);
  });
});

describe("retention", () => {
  test("rows below a new floor leave the window; the selection moves to what is left", async () => {
    const s = fakeStream(texts(10));
    const w = new MessageWindow(s.deps, "json");
    await w.open({ kind: "oldest" });
    w.select(s.metas[1]!.offset);
    await w.dropBelow(s.metas[4]!.offset);
    expect(w.rows.value.map((m) => m.text)).toEqual(texts(10).slice(4));
    expect([w.hasBefore.value, w.selected.value]).toEqual([false, s.metas[4]!.offset]);
    // A page read while the floor moved does not bring trimmed rows back.
    const t = new MessageWindow(s.deps, "json");
    await t.open({ kind: "oldest" });
    const growing = t.loadAfter();
    await t.dropBelow(s.metas[6]!.offset);
    await growing;
    expect(t.rows.value.map((m) => m.text)).toEqual(texts(10).slice(6));
    // A floor past every row opens the window again (here: the fake still serves from 0).
    const calls = s.calls.index.length;
    await w.dropBelow(s.bytes.length);
    expect(s.calls.index.length).toBe(calls + 1);
  });
});

describe("seek state", () => {
  test("by time: the first message appended at or after it", async () => {
    const s = fakeStream(texts(100), (i) => 5000 + Math.floor(i / 10) * 100);
    const w = new MessageWindow(s.deps, "json");
    await w.open({ kind: "time", atMs: 5250 });
    expect(w.opened.value).toEqual({ kind: "time", atMs: 5250 });
    expect(w.rows.value[0]!.text).toBe('{"n":30}');
    expect(w.selected.value).toBe(s.metas[30]!.offset);
    expect(s.calls.index[0]).toEqual({ atMs: 5250 });
  });
  test("past the last append: an empty window that knows there are older messages", async () => {
    const s = fakeStream(texts(10));
    const w = new MessageWindow(s.deps, "json");
    await w.open({ kind: "time", atMs: 99_999 });
    expect([w.rows.value.length, w.hasBefore.value, w.hasAfter.value, w.selected.value]).toEqual([0, true, false, null]);
  });
  test("by offset inside a message: the message holding it", async () => {
    const s = fakeStream(texts(10));
    const w = new MessageWindow(s.deps, "json");
    await w.open({ kind: "offset", position: s.metas[3]!.offset + 2 });
    expect(w.rows.value[0]!.text).toBe('{"n":3}');
  });
  test("a later open wins over one still loading", async () => {
    const s = fakeStream(texts(50));
    const w = new MessageWindow(s.deps, "json");
    const first = w.open({ kind: "oldest" });
    await w.open({ kind: "offset", position: s.metas[40]!.offset });
    await first;
    expect(w.rows.value[0]!.text).toBe('{"n":40}');
  });
  test("a failed read is an error, not an empty stream", async () => {
    const s = fakeStream(texts(5));
    const w = new MessageWindow({ ...s.deps, read: async () => ({ ok: false, message: "412 STREAM_INCARNATION_MISMATCH" }) }, "json");
    await w.open({ kind: "oldest" });
    expect(w.error.value).toBe("412 STREAM_INCARNATION_MISMATCH");
  });
});

describe("search state", () => {
  const page = (over: Partial<SearchPage>): SearchPage => ({ matches: [], from: 0, scanned_to: 0, tail_offset: 300, done: false, ...over });
  test("asks on from where each answer stopped, until a page of matches or the tail", async () => {
    const asked: number[] = [];
    const answers = [page({ matches: [{ offset: 10, size: 5, preview: "a" }], scanned_to: 100 }), page({ scanned_to: 200 }), page({ matches: [{ offset: 250, size: 5, preview: "b" }], scanned_to: 300, done: true })];
    const m = new SearchModel(async (q) => (asked.push(q.from), { ok: true, data: answers.shift()! }), 5);
    await m.run({ text: "x", field: "", value: "", matchCase: false });
    expect(asked).toEqual([0, 100, 200]);
    expect(m.matches.value.map((x) => x.offset)).toEqual([10, 250]);
    expect([m.scannedTo.value, m.done.value, m.running.value]).toEqual([300, true, false]);
  });
  test("stops at a page of matches; more() goes on from there", async () => {
    const asked: { from: number; limit?: number }[] = [];
    const m = new SearchModel(async (q) => {
      asked.push({ from: q.from, limit: q.limit });
      return { ok: true, data: page({ matches: [{ offset: q.from, size: 1, preview: "" }, { offset: q.from + 1, size: 1, preview: "" }], scanned_to: q.from + 2 }) };
    }, 2);
    await m.run({ text: "", field: "type", value: "order", matchCase: true });
    expect(asked).toEqual([{ from: 0, limit: 2 }]);
    await m.more();
    expect(asked[1]).toEqual({ from: 2, limit: 2 });
    expect(m.matches.value.length).toBe(4);
  });
  test("an error stops the run and says why", async () => {
    const m = new SearchModel(async () => ({ ok: false, status: 400, code: "INVALID_QUERY", message: "field search needs an application/json stream" }));
    await m.run({ text: "", field: "a", value: "", matchCase: false });
    expect(m.error.value).toBe("400 INVALID_QUERY field search needs an application/json stream");
    expect(m.running.value).toBe(false);
  });
});

describe("export", () => {
  test("reads the range in pieces and keeps every byte", async () => {
    const s = fakeStream(texts(2000));
    const end = s.metas[1500]!.offset;
    const seen: number[] = [];
    const r = await readRange(async (o, max) => s.deps.read(o, Math.min(max, 7000), new AbortController().signal), { from: s.metas[10]!.offset, to: end, kind: "json" }, new AbortController().signal, (p) => seen.push(p));
    if (!r.ok) throw new Error(r.message);
    const joined = new TextDecoder().decode(Buffer.concat(r.parts));
    expect(joined).toBe(texts(2000).slice(10, 1500).join("\n") + "\n");
    expect(seen.length).toBeGreaterThan(1);
    expect(exportFileName("orders/2026", { from: 0, to: 9, kind: "json" })).toBe("orders_2026_0-9.ndjson");
  });
});
