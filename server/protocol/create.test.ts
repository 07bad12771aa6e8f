import { describe, expect, test } from "bun:test";
import { decideCreate, forkOffset } from "./create";
import type { StreamState } from "./state";
import { createRequest, streamState } from "./testing-state";

const req = createRequest;
type Source = { state: StreamState | undefined; appendAt: (offset: number) => number[] | null };
/** Loads what the engine would: the source's append at the fork offset. The stream at the path has no attributes unless a test says otherwise. */
const decide = (existing: Parameters<typeof decideCreate>[0], r: Parameters<typeof decideCreate>[1], source: Source | null, attrs: string | null = null) =>
  decideCreate(existing, r, source && { state: source.state, appendAt: source.state && r.fork ? source.appendAt(forkOffset(r.fork, source.state)) : null }, attrs);

describe("PUT and Stream-Seq [CW]", () => {
  test("[CW] a PUT that creates the stream stores its Stream-Seq as the starting value without checking it", () => {
    const d = decide(undefined, req({ streamSeq: "000" }), null);
    expect(d).toMatchObject({ kind: "create", plan: { streamSeq: "000" } });
  });
  test("[CW] a PUT that finds the stream already there ignores the header", () => {
    const existing = streamState({ lastSeq: "009" });
    expect(decide(existing, req({ streamSeq: "001" }), null)).toEqual({ kind: "exists", state: existing });
  });
});

describe("PUT and Stream-Incarnation [CW]", () => {
  test("[CW] a PUT with the header for a missing stream answers 412 and creates nothing", () => {
    expect(decide(undefined, req({ incarnation: "5" }), null)).toMatchObject({ kind: "error", code: "STREAM_INCARNATION_MISMATCH" });
  });
  test("[CW] a PUT of an existing stream with another incarnation's token answers 412 with the current one", () => {
    expect(decide(streamState({ incarnation: "7" }), req({ incarnation: "5" }), null)).toMatchObject({
      code: "STREAM_INCARNATION_MISMATCH",
      context: { incarnation: "7" },
    });
  });
  test("a matching token proceeds to the idempotency check", () => {
    expect(decide(streamState({ incarnation: "7" }), req({ incarnation: "7" }), null).kind).toBe("exists");
    expect(decide(streamState({ incarnation: "7" }), req({ incarnation: "7", close: true }), null)).toMatchObject({ code: "STREAM_ALREADY_EXISTS_CONFLICT" });
  });
});

describe("create configuration (spec §2.5)", () => {
  test("an omitted Content-Type means application/octet-stream", () => {
    expect(decide(undefined, req({ contentType: null }), null)).toMatchObject({ plan: { contentType: "application/octet-stream" } });
  });
  test("PUT [] creates an empty JSON stream; a JSON body is flattened one level", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    expect(decide(undefined, req({ body: enc("[]") }), null)).toMatchObject({ plan: { messages: [] } });
    const d = decide(undefined, req({ body: enc("[1,2]") }), null);
    expect(d.kind === "create" && d.plan.messages.length).toBe(2);
  });
  test("a soft-deleted path answers STREAM_SOFT_DELETED", () => {
    expect(decide(streamState({ softDeleted: true }), req(), null)).toMatchObject({ code: "STREAM_SOFT_DELETED" });
  });
  test("a new producer must start at seq 0", () => {
    expect(decide(undefined, req({ producer: { id: "p", epoch: 0, seq: 2 } }), null)).toMatchObject({ code: "PRODUCER_SEQ_CONFLICT", context: { expectedSeq: 0 } });
  });
});

describe("Stream-Attrs on a re-PUT (spec §2.5)", () => {
  test("a re-PUT matches only when the attributes are the same", () => {
    const existing = streamState({ attrsId: 3 });
    expect(decide(existing, req({ attrs: '{"title":"a"}' }), null, '{"title":"a"}').kind).toBe("exists");
    expect(decide(existing, req({ attrs: '{"title":"b"}' }), null, '{"title":"a"}')).toMatchObject({ code: "STREAM_ALREADY_EXISTS_CONFLICT" });
    expect(decide(existing, req({ attrs: null }), null, '{"title":"a"}')).toMatchObject({ code: "STREAM_ALREADY_EXISTS_CONFLICT" });
    expect(decide(streamState(), req({ attrs: '{"title":"a"}' }), null, null)).toMatchObject({ code: "STREAM_ALREADY_EXISTS_CONFLICT" });
  });
});

describe("forks (spec §7.4)", () => {
  const source = (tail = 20, appendAt: (o: number) => number[] | null = (o) => (o === 10 ? [4, 6] : o === tail ? [] : null)) => ({
    state: streamState({ id: 9, tail, ttlSeconds: 30 }),
    appendAt,
  });
  const fork = (offset: number | null, subOffset: number | null = null) => ({ sourceKey: "test/src", offset, subOffset });
  test("a missing source is 404 and a beyond-tail offset is INVALID_FORK", () => {
    expect(decide(undefined, req({ fork: fork(null) }), { state: undefined, appendAt: () => null })).toMatchObject({ code: "STREAM_NOT_FOUND" });
    expect(decide(undefined, req({ fork: fork(21) }), source())).toMatchObject({ code: "INVALID_FORK" });
  });
  test("an offset that is not an append boundary is INVALID_FORK", () => {
    expect(decide(undefined, req({ fork: fork(12) }), source())).toMatchObject({ code: "INVALID_FORK" });
  });
  test("a JSON sub-offset counts messages of the append at the offset and may not overshoot it", () => {
    expect(decide(undefined, req({ fork: fork(10, 1) }), source())).toMatchObject({ plan: { fork: { subBytes: 4, subMessages: 1 } } });
    expect(decide(undefined, req({ fork: fork(10, 3) }), source())).toMatchObject({ code: "INVALID_FORK" });
  });
  test("the fork inherits the source's type and TTL unless it sets its own", () => {
    expect(decide(undefined, req({ contentType: null, fork: fork(10) }), source())).toMatchObject({
      plan: { contentType: "application/json", lifetime: { ttlSeconds: 30 } },
    });
    expect(decide(undefined, req({ contentType: "text/plain", fork: fork(10) }), source())).toMatchObject({ code: "CONTENT_TYPE_MISMATCH" });
  });
  test("a fork below the source's retained floor is 410; a fork keeps the floor and a snapshot it covers", () => {
    const snapshot = { blobId: 4, offset: 10, contentType: "application/json", digest: "d", size: 3 };
    const retained = { state: streamState({ id: 9, tail: 20, retained: 10, snapshot }), appendAt: (o: number) => (o === 10 ? [4, 6] : o === 20 ? [] : null) };
    expect(decide(undefined, req({ fork: fork(0) }), { ...retained, appendAt: () => [] })).toMatchObject({ code: "STREAM_GONE", context: { earliestOffset: 10, nextOffset: 10 } });
    expect(decide(undefined, req({ fork: fork(10) }), retained)).toMatchObject({ plan: { fork: { retained: 10, snapshot } } });
    expect(decide(undefined, req({ fork: fork(null) }), retained)).toMatchObject({ plan: { fork: { offset: 20, retained: 10, snapshot } } });
  });
  test("a fork below the source's snapshot does not keep it", () => {
    const snapshot = { blobId: 4, offset: 20, contentType: "application/json", digest: "d", size: 3 };
    const src = { state: streamState({ id: 9, tail: 20, snapshot }), appendAt: (o: number) => (o === 10 ? [4, 6] : null) };
    expect(decide(undefined, req({ fork: fork(10) }), src)).toMatchObject({ plan: { fork: { retained: 0, snapshot: null } } });
  });
});
