import { describe, expect, test } from "bun:test";
import { describeReader, READERS_SHOWN, ReadersModel, readersSummary } from "./readers";
import type { ReaderPage, ReaderRow } from "../api/readers";
import type { ApiResult } from "../api/introspection";

const row = (patch: Partial<ReaderRow> = {}): ReaderRow => ({
  kind: "sse",
  address: "127.0.0.1",
  offset: "0000000000000000_0000000000001200",
  offset_bytes: 1200,
  started_at_ms: 1_765_080_000_000,
  since_ms: 65_321,
  behind_bytes: 34,
  behind_messages: 2,
  behind_messages_capped: false,
  ...patch,
});

const page = (readers: ReaderRow[], total = readers.length): ReaderPage => ({
  bucket_id: "demo",
  stream_id: "orders",
  tail_offset: 1234,
  next_offset: "0000000000000000_0000000000001234",
  readers,
  total,
  truncated: total > readers.length,
});

describe("a reader's lag in words", () => {
  test("behind in bytes and messages, and for how long it has been reading", () => {
    expect(describeReader(row())).toEqual({
      kind: "sse",
      address: "127.0.0.1",
      offset: "0000000000000000_0000000000001200",
      caughtUp: false,
      behindBytes: "34 bytes",
      behindMessages: "2 messages",
      readingFor: "1m 5s",
    });
  });
  test("a reader at the tail is caught up; a capped count is a lower bound", () => {
    expect(describeReader(row({ kind: "long-poll", behind_bytes: 0, behind_messages: 0 }))).toMatchObject({ caughtUp: true, behindBytes: "at the tail", behindMessages: "0 messages" });
    expect(describeReader(row({ behind_bytes: 9_000_000, behind_messages: 1000, behind_messages_capped: true })).behindMessages).toBe("at least 1,000 messages");
    expect(describeReader(row({ behind_bytes: 1, behind_messages: 1 }))).toMatchObject({ behindBytes: "1 byte", behindMessages: "1 message" });
  });
  test("the summary says how many there are in all when the list is bounded", () => {
    expect(readersSummary(page([]))).toStartWith("No live reader");
    expect(readersSummary(page([row()]))).toBe("1 live reader.");
    expect(readersSummary(page([row(), row()], 120))).toBe("120 live readers; the 2 most behind are listed.");
  });
});

describe("the readers model", () => {
  test("asks for a bounded list of this stream's readers and polls until stopped", async () => {
    const asked: [string, string, number][] = [];
    const fetcher = async (bucket: string, stream: string, limit: number): Promise<ApiResult<ReaderPage>> => {
      asked.push([bucket, stream, limit]);
      return { ok: true, data: page([row()], asked.length) };
    };
    const m = new ReadersModel("demo", "orders", fetcher, 5);
    m.start();
    await new Promise((r) => setTimeout(r, 30));
    m.stop();
    const calls = asked.length;
    expect(calls).toBeGreaterThan(1);
    expect(asked[0]).toEqual(["demo", "orders", READERS_SHOWN]);
    expect(m.rows.map((r) => r.behindBytes)).toEqual(["34 bytes"]);
    await new Promise((r) => setTimeout(r, 20));
    expect(asked.length).toBe(calls);
  });
  test("an error is kept for the page to show, the last list stays", async () => {
    let fail = false;
    const m = new ReadersModel("demo", "orders", async () => (fail ? { ok: false, status: 404, code: "STREAM_NOT_FOUND", message: "no such stream" } : { ok: true, data: page([row()]) }), 1000);
    await m.list.load(null);
    fail = true;
    await m.list.reload();
    expect(m.list.error.value).toMatchObject({ status: 404 });
    expect(m.rows.length).toBe(1);
  });
});
