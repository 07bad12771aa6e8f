// The recipes' decisions against a scripted fetch: which answers they retry, skip on, or throw,
// and that the incarnation goes out on every request once known. The same recipes run against
// the compiled binary in e2e/client-package.test.ts.
import { describe, expect, test } from "bun:test";
import { IncarnationMismatch, OutcomeUnknown, ProducerFenced, StreamClosed, StreamSeqConflict } from "./errors.js";
import { padSeq, parseSeq } from "./headers.js";
import { parseMultipart } from "./multipart.js";
import { OutboxPublisher } from "./outbox-publisher.js";
import { PrefixCountWriter, RetriesExhausted } from "./prefix-count-writer.js";
import { UrsaStream } from "./stream.js";

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string | null;
}

/** A fetch that answers from `script` in order and records every request. */
function scripted(script: (() => Response)[]) {
  const sent: Sent[] = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({ method: init?.method ?? "GET", url: String(input), headers: new Headers(init?.headers), body: typeof init?.body === "string" ? init.body : null });
    const next = script.shift();
    if (!next) throw new Error(`unscripted request ${init?.method} ${input}`);
    return next();
  }) as typeof fetch;
  return { fetch: f, sent };
}

const json = (status: number, value: unknown, headers: Record<string, string> = {}) => () => new Response(JSON.stringify(value), { status, headers: { "Content-Type": "application/json", ...headers } });
const empty = (status: number, headers: Record<string, string> = {}) => () => new Response(null, { status, headers });
const seqConflict = (lastSeq: number) => json(409, { error: { code: "STREAM_SEQ_CONFLICT", message: "x" } }, { "Stream-Last-Seq": padSeq(lastSeq), "Stream-Next-Offset": "t" });
const tail = (events: unknown[], next: string, incarnation = "1") => json(200, events, { "Stream-Next-Offset": next, "Stream-Up-To-Date": "true", "Stream-Incarnation": incarnation });

test("padSeq pads to 20 digits so bytewise order is numeric order; parseSeq inverts it", () => {
  expect(padSeq(10)).toBe("00000000000000000010");
  expect(padSeq(10) > padSeq(9)).toBe(true);
  expect(parseSeq(padSeq(123))).toBe(123);
  expect(() => padSeq(-1)).toThrow(RangeError);
  expect(() => parseSeq("12a")).toThrow(RangeError);
});

test("parseMultipart splits on the delimiter, keeping CR, LF and dashes inside a payload", () => {
  const b = "B";
  const raw = `--${b}\r\nContent-Type: application/json\r\n\r\n{"a":"x\\r\\n--"}\r\n--${b}\r\nContent-Type: text/plain\r\n\r\nline1\r\n--notit\r\n--${b}--\r\n`;
  const parts = parseMultipart(new TextEncoder().encode(raw), b);
  expect(parts.map((p) => [p.contentType, new TextDecoder().decode(p.body)])).toEqual([
    ["application/json", '{"a":"x\\r\\n--"}'],
    ["text/plain", "line1\r\n--notit"],
  ]);
});

describe("UrsaStream", () => {
  test("the token and, once known, the incarnation go out on every later request; a 412 throws IncarnationMismatch", async () => {
    const { fetch, sent } = scripted([empty(201, { "Stream-Incarnation": "7", "Stream-Next-Offset": "a" }), empty(204, { "Stream-Incarnation": "7" }), empty(412, { "Stream-Incarnation": "8" })]);
    const s = new UrsaStream("http://h/b/s", { token: "secret", fetch });
    expect(await s.create({ contentType: "application/json" })).toEqual({ created: true, incarnation: "7", nextOffset: "a" });
    await s.append([{ n: 1 }]);
    const error = await s.head().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IncarnationMismatch);
    expect((error as IncarnationMismatch).incarnation).toBe("8");
    expect(sent.map((r) => [r.method, r.headers.get("Stream-Incarnation"), r.headers.get("Authorization")])).toEqual([
      ["PUT", null, "Bearer secret"],
      ["POST", "7", "Bearer secret"],
      ["HEAD", "7", "Bearer secret"],
    ]);
    // create never seeds a Stream-Seq; the append is JSON on the JSON stream.
    expect(sent[0]!.headers.get("Stream-Seq")).toBeNull();
    expect(sent[1]!.headers.get("Content-Type")).toBe("application/json");
    expect(sent[1]!.body).toBe('[{"n":1}]');
  });

  test("a read ends only at Stream-Up-To-Date: a short response is followed by another", async () => {
    const { fetch, sent } = scripted([json(200, [1], { "Stream-Next-Offset": "o1" }), json(200, [], { "Stream-Next-Offset": "o1b" }), tail([2, 3], "o2")]);
    const s = new UrsaStream("http://h/b/s", { fetch });
    const read = await s.readToTail("-1", { maxBytes: 1 });
    expect(read.messages).toEqual([1, 2, 3]);
    expect(read.nextOffset).toBe("o2");
    expect(sent.map((r) => new URL(r.url).searchParams.get("offset"))).toEqual(["-1", "o1", "o1b"]);
    expect(sent.every((r) => new URL(r.url).searchParams.get("consistency") === "leader")).toBe(true);
  });

  test("an append with producer headers answered 204 is a duplicate", async () => {
    const { fetch, sent } = scripted([empty(204, { "Stream-Next-Offset": "n" })]);
    const s = new UrsaStream("http://h/b/s", { fetch });
    expect(await s.append({ a: 1 }, { streamSeq: 3, producer: { id: "p", epoch: 2, seq: 5 } })).toMatchObject({ duplicate: true, nextOffset: "n" });
    expect(Object.fromEntries(sent[0]!.headers)).toMatchObject({ "stream-seq": padSeq(3), "producer-id": "p", "producer-epoch": "2", "producer-seq": "5" });
  });
});

describe("PrefixCountWriter", () => {
  test("sends the count before its commit; on a Stream-Seq 409 reads on and retries with n + k", async () => {
    const { fetch, sent } = scripted([tail([], "o0"), seqConflict(0), tail(["x", "y"], "o2"), empty(204, { "Stream-Next-Offset": "o3" })]);
    const w = new PrefixCountWriter("http://h/b/s", { fetch });
    const seen: number[] = [];
    const done = await w.commit((log) => {
      seen.push(log.n);
      return ["mine"];
    });
    expect(seen).toEqual([0, 2]);
    expect(done).toMatchObject({ n: 2, nextOffset: "o3", size: 1 });
    expect(done.attempts.map((a) => [a.outcome, a.streamSeq])).toEqual([
      ["conflict", padSeq(0)],
      ["accepted", padSeq(2)],
    ]);
    expect(sent.filter((r) => r.method === "POST").map((r) => r.headers.get("Stream-Seq"))).toEqual([padSeq(0), padSeq(2)]);
  });

  test("any other 409 is thrown, not retried", async () => {
    const { fetch, sent } = scripted([tail([], "o0"), json(409, { error: { code: "STREAM_CLOSED" } }, { "Stream-Closed": "true" })]);
    const error = await new PrefixCountWriter("http://h/b/s", { fetch }).commit(() => ["e"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamClosed);
    expect(sent).toHaveLength(2);
  });

  test("maxAttempts conflicts with nothing new to read (a seeded value) end in RetriesExhausted", async () => {
    const { fetch } = scripted([tail([], "o"), seqConflict(5), tail([], "o"), seqConflict(5)]);
    const error = await new PrefixCountWriter("http://h/b/s", { fetch, maxAttempts: 2 }).commit(() => ["e"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RetriesExhausted);
    expect((error as RetriesExhausted).lastConflict.lastSeq).toBe(padSeq(5));
    expect((error as RetriesExhausted).attempts.map((a) => a.streamSeq)).toEqual([padSeq(0), padSeq(0)]);
  });

  test("never appends an empty commit", async () => {
    const { fetch, sent } = scripted([tail([], "o")]);
    await expect(new PrefixCountWriter("http://h/b/s", { fetch }).commit(() => [])).rejects.toThrow(/empty commit/);
    expect(sent.map((r) => r.method)).toEqual(["GET"]);
  });
});

describe("OutboxPublisher", () => {
  const pub = (fetch: typeof globalThis.fetch) => new OutboxPublisher("http://h/b/s", { producerId: "p", epoch: 2, fetch });

  test("a 409 with Stream-Last-Seq >= the fact is 'already-published' and uses up no Producer-Seq", async () => {
    const { fetch, sent } = scripted([seqConflict(7), json(200, null, { "Stream-Next-Offset": "n" })]);
    const p = pub(fetch);
    expect(await p.publish(5, { n: 5 })).toBe("already-published");
    expect(p.lastPublished).toBe(7);
    expect(p.nextProducerSeq).toBe(0);
    expect(await p.publish(8, { n: 8 })).toBe("published");
    expect(sent.map((r) => [r.headers.get("Stream-Seq"), r.headers.get("Producer-Seq")])).toEqual([
      [padSeq(5), "0"],
      [padSeq(8), "0"],
    ]);
    expect(p.nextProducerSeq).toBe(1);
  });

  test("a 409 without Stream-Last-Seq is thrown: skipping on it would lose the fact", async () => {
    const { fetch } = scripted([json(409, { error: { code: "PRODUCER_SEQ_CONFLICT" } }, { "Producer-Expected-Seq": "3" })]);
    const p = pub(fetch);
    await expect(p.publish(1, {})).rejects.toMatchObject({ status: 409, code: "PRODUCER_SEQ_CONFLICT" });
    expect(p.lastPublished).toBeNull();
  });

  test("a 403 throws ProducerFenced", async () => {
    const { fetch } = scripted([json(403, { error: { code: "PRODUCER_EPOCH_STALE" } }, { "Producer-Epoch": "3" })]);
    await expect(pub(fetch).publish(1, {})).rejects.toBeInstanceOf(ProducerFenced);
  });

  test("after a network error the same request goes again, and a duplicate counts as published", async () => {
    const fail = () => {
      throw new TypeError("fetch failed");
    };
    const { fetch, sent } = scripted([fail, empty(204, { "Producer-Seq": "0" })]);
    const p = new OutboxPublisher("http://h/b/s", { producerId: "p", epoch: 1, fetch, maxNetworkRetries: 1 });
    expect(await p.publish(1, { n: 1 })).toBe("published");
    expect(sent.map((r) => [r.headers.get("Producer-Seq"), r.headers.get("Stream-Seq")])).toEqual([
      ["0", padSeq(1)],
      ["0", padSeq(1)],
    ]);
  });

  test("a 409 with Stream-Last-Seq below the fact is not 'already published'", async () => {
    const { fetch } = scripted([seqConflict(2)]);
    await expect(pub(fetch).publish(5, {})).rejects.toBeInstanceOf(StreamSeqConflict);
  });
});

test("a 410 after a lost answer is OutcomeUnknown, not StreamGone: counting on could write the commit twice", async () => {
  const lost = () => {
    throw new TypeError("fetch failed");
  };
  const { fetch } = scripted([tail([], "o"), lost, json(410, { error: { code: "STREAM_GONE" } }, { "Stream-Earliest-Offset": "e" })]);
  const w = new PrefixCountWriter("http://h/b/s", { fetch, operationIdOf: (e) => (e as { op?: string }).op });
  const error = await w.commit((log) => [{ op: log.operationId }]).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(OutcomeUnknown);
});
