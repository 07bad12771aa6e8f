// The rules of Ursula v0.9.0, Conditional Writes [CW], one test (at least) per bullet, on the pure
// decision.

import { describe, expect, test } from "bun:test";
import { applyAppend, decideAppend, type AppendDecision, type AppendRequest } from "./append";
import { DEFAULT_PRODUCER_LIMITS } from "./producer";
import { ProducerTable } from "./producer-table";
import { producer, streamState } from "./testing-state";
import type { StreamState } from "./state";

const msg = (s: string) => new TextEncoder().encode(s + "\n");
const req = (overrides: Partial<AppendRequest> = {}): AppendRequest => ({
  contentType: "application/json",
  messages: [msg("1")],
  close: false,
  streamSeq: null,
  producer: null,
  incarnation: null,
  ...overrides,
});
const P = (id: string, epoch: number, seq: number) => ({ id, epoch, seq });
const decide = (state: StreamState | undefined, r: AppendRequest) => decideAppend(state, r, { nowMs: 1, limits: DEFAULT_PRODUCER_LIMITS });

/** Decide and, when accepted, apply: what the store does inside its transaction. */
function run(state: StreamState, r: AppendRequest): { decision: AppendDecision; state: StreamState } {
  const decision = decide(state, r);
  return { decision, state: decision.kind === "accepted" ? applyAppend(state, decision.effect, 1) : state };
}

describe("Stream-Seq on appends [CW]", () => {
  test("[CW] an append is accepted only when its value is strictly greater, and the value is then stored", () => {
    let s = streamState({ lastSeq: "005" });
    const r1 = run(s, req({ streamSeq: "006" }));
    expect(r1.decision.kind).toBe("accepted");
    expect(r1.state.lastSeq).toBe("006");
    s = r1.state;
    expect(run(s, req({ streamSeq: "006" })).decision.kind).toBe("error");
  });
  test('[CW] bytewise: "10" is not greater than "9"', () => {
    const d = decide(streamState({ lastSeq: "9" }), req({ streamSeq: "10" }));
    expect(d).toMatchObject({ kind: "error", code: "STREAM_SEQ_CONFLICT" });
  });
  test("[CW] the 409 carries STREAM_SEQ_CONFLICT, the current tail and the stored value, and neither Stream-Closed nor Producer-Expected-Seq", () => {
    const d = decide(streamState({ lastSeq: "005", tail: 42 }), req({ streamSeq: "004" }));
    expect(d).toMatchObject({ kind: "error", code: "STREAM_SEQ_CONFLICT" });
    if (d.kind !== "error") throw new Error();
    expect(d.context).toEqual({ nextOffset: 42, lastSeq: "005", incarnation: "100" });
  });
  test("[CW] the scope is the stream: a value is checked against every writer's earlier values", () => {
    let s = run(streamState(), req({ streamSeq: "003", producer: P("a", 0, 0) })).state;
    expect(decide(s, req({ streamSeq: "003", producer: P("b", 0, 0) }))).toMatchObject({ code: "STREAM_SEQ_CONFLICT" });
    expect(decide(s, req({ streamSeq: "002" }))).toMatchObject({ code: "STREAM_SEQ_CONFLICT" });
    s = run(s, req({ streamSeq: "004", producer: P("b", 0, 0) })).state;
    expect(s.lastSeq).toBe("004");
  });
  test("[CW] an append without Stream-Seq is not checked and leaves the stored value unchanged", () => {
    const r = run(streamState({ lastSeq: "005" }), req());
    expect(r.decision.kind).toBe("accepted");
    expect(r.state.lastSeq).toBe("005");
  });
  test("[CW] a refused append commits nothing: no bytes, no Stream-Seq, no producer progress, no TTL renewal", () => {
    const s = streamState({ lastSeq: "005", producers: ProducerTable.from([["p", producer(1, 3)]]), ttlSeconds: 60, touchedAtMs: 0 });
    const r = run(s, req({ streamSeq: "001", producer: P("p", 1, 4) }));
    expect(r.decision.kind).toBe("error");
    expect(r.state).toBe(s);
  });
});

describe("producer interplay [CW]", () => {
  const withP = (lastSeq = 3, lastNext = 10) => streamState({ lastSeq: "009", tail: 10, producers: ProducerTable.from([["p", producer(1, lastSeq, 5, lastNext)]]) });

  test("[CW] deduplication runs first: a retry is a duplicate, not a 409, though its Stream-Seq is no longer greater", () => {
    const d = decide(withP(), req({ streamSeq: "009", producer: P("p", 1, 3) }));
    expect(d.kind).toBe("duplicate");
  });
  test("[CW] a repeat of the producer's newest write carries its original Stream-Next-Offset", () => {
    expect(decide(withP(3, 10), req({ producer: P("p", 1, 3) }))).toMatchObject({ kind: "duplicate", nextOffset: 10, lastSeq: 3, epoch: 1 });
  });
  test("[CW] a repeat of an older write carries no Stream-Next-Offset", () => {
    expect(decide(withP(3, 10), req({ producer: P("p", 1, 1) }))).toMatchObject({ kind: "duplicate", nextOffset: null, lastSeq: 3 });
  });
  test("[CW] an append rejected with 409 uses up no Producer-Seq: the same seq with a greater Stream-Seq is then accepted", () => {
    const s = withP();
    const refused = run(s, req({ streamSeq: "001", producer: P("p", 1, 4) }));
    expect(refused.decision).toMatchObject({ code: "STREAM_SEQ_CONFLICT" });
    expect(refused.state.producers.get("p")!.lastSeq).toBe(3);
    expect(run(refused.state, req({ streamSeq: "010", producer: P("p", 1, 4) })).decision.kind).toBe("accepted");
  });
  test("[CW] a Stream-Seq 409 on a new epoch's first write does not fence the old epoch", () => {
    const s = withP();
    const refused = run(s, req({ streamSeq: "001", producer: P("p", 2, 0) }));
    expect(refused.decision).toMatchObject({ code: "STREAM_SEQ_CONFLICT" });
    expect(run(refused.state, req({ streamSeq: "010", producer: P("p", 1, 4) })).decision.kind).toBe("accepted");
  });
  test("[CW] once the new epoch's first append is accepted, the old epoch answers 403", () => {
    const taken = run(withP(), req({ streamSeq: "010", producer: P("p", 2, 0) }));
    expect(taken.decision.kind).toBe("accepted");
    const d = decide(taken.state, req({ streamSeq: "011", producer: P("p", 1, 4) }));
    expect(d).toMatchObject({ kind: "error", code: "PRODUCER_EPOCH_STALE", context: { producerEpoch: 2 } });
  });
  test("[CW] an out-of-order Producer-Seq answers 409 with Producer-Expected-Seq and without Stream-Last-Seq", () => {
    const d = decide(withP(), req({ streamSeq: "010", producer: P("p", 1, 7) }));
    expect(d).toMatchObject({ kind: "error", code: "PRODUCER_SEQ_CONFLICT", context: { expectedSeq: 4, receivedSeq: 7 } });
    if (d.kind === "error") expect(d.context.lastSeq).toBeUndefined();
  });
  test("[CW] a closed stream answers 409 with Stream-Closed: true and without Stream-Last-Seq", () => {
    const d = decide(streamState({ closed: true, lastSeq: "009", tail: 10 }), req({ streamSeq: "001" }));
    expect(d).toMatchObject({ kind: "error", code: "STREAM_CLOSED", context: { closed: true, nextOffset: 10 } });
    if (d.kind === "error") expect(d.context.lastSeq).toBeUndefined();
  });
  test("[CW] a different Content-Type answers 409 CONTENT_TYPE_MISMATCH without Stream-Last-Seq; parameters count", () => {
    const d = decide(streamState({ lastSeq: "009" }), req({ contentType: "application/json; charset=utf-8", streamSeq: "001" }));
    expect(d).toMatchObject({ kind: "error", code: "CONTENT_TYPE_MISMATCH" });
    if (d.kind === "error") expect(d.context.lastSeq).toBeUndefined();
  });
  test("a retry of the write that closed the stream is a duplicate with Stream-Closed, not a 409", () => {
    const s = streamState({ closed: true, producers: ProducerTable.from([["p", producer(1, 3)]]) });
    expect(decide(s, req({ producer: P("p", 1, 3), close: true }))).toMatchObject({ kind: "duplicate", closed: true });
  });
});

describe("Stream-Incarnation on appends [CW]", () => {
  test("a 403 or 409 about the stream carries its current token, so a client can tell which stream refused", () => {
    const s = streamState({ incarnation: "200", lastSeq: "009", producers: ProducerTable.from([["p", producer(2, 0)]]) });
    expect(decide(s, req({ streamSeq: "001" }))).toMatchObject({ code: "STREAM_SEQ_CONFLICT", context: { incarnation: "200" } });
    expect(decide(s, req({ producer: P("p", 1, 0) }))).toMatchObject({ code: "PRODUCER_EPOCH_STALE", context: { incarnation: "200" } });
  });
  test("[CW] a mismatch answers 412 with the current token, never Stream-Last-Seq, and before any 409", () => {
    const s = streamState({ incarnation: "200", lastSeq: "009", closed: true });
    const d = decide(s, req({ incarnation: "100", streamSeq: "001" }));
    expect(d).toMatchObject({ kind: "error", code: "STREAM_INCARNATION_MISMATCH", context: { incarnation: "200" } });
    if (d.kind === "error") expect(d.context.lastSeq).toBeUndefined();
  });
  test("[CW] a request that would answer 404 without the header still does", () => {
    expect(decide(undefined, req({ incarnation: "100" }))).toMatchObject({ code: "STREAM_NOT_FOUND" });
  });
  test("[CW] without the header nothing changes", () => {
    expect(decide(streamState({ incarnation: "200" }), req()).kind).toBe("accepted");
  });
});

describe("closing", () => {
  test("close-only on an open stream closes it and records the producer that closed it", () => {
    const r = run(streamState(), req({ messages: [], contentType: null, close: true, producer: P("p", 0, 0) }));
    expect(r.state.closed).toBe(true);
    expect(r.state.closedBy).toEqual(P("p", 0, 0));
  });
  test("close-only on a closed stream is idempotent", () => {
    expect(decide(streamState({ closed: true }), req({ messages: [], contentType: null, close: true }))).toMatchObject({ kind: "already_closed" });
  });
});

describe("producer lifetime and limit (spec §5.3 [NEW], §5.1 Phase B step 5)", () => {
  const HOUR = 3_600_000;
  const limits = { idleTtlMs: 7 * 24 * HOUR, maxPerStream: 2 };
  const at = (updatedAtMs: number, epoch = 0, lastSeq = 4) => ({ ...producer(epoch, lastSeq), updatedAtMs });
  const withProducers = (entries: [string, ReturnType<typeof at>][]) => streamState({ producers: ProducerTable.from(entries) });
  const decideAt = (state: StreamState, r: AppendRequest, nowMs: number, l = limits) => decideAppend(state, r, { nowMs, limits: l });

  test("a producer idle for the idle limit is forgotten: it must restart at seq 0, in any epoch", () => {
    const s = withProducers([["a", at(0, 3)]]);
    const ttl = limits.idleTtlMs;
    expect(decideAt(s, req({ producer: P("a", 3, 0) }), ttl - 1)).toMatchObject({ kind: "duplicate" });
    expect(decideAt(s, req({ producer: P("a", 3, 5) }), ttl)).toMatchObject({ code: "PRODUCER_SEQ_CONFLICT", context: { expectedSeq: 0, receivedSeq: 5 } });
    for (const epoch of [0, 3, 9]) {
      expect(decideAt(s, req({ producer: P("a", epoch, 0) }), ttl)).toMatchObject({ kind: "accepted", effect: { evicts: null, restartsForgotten: true } });
    }
  });

  test("a remembered or brand-new producer is not a restart", () => {
    const s = withProducers([["a", at(0)]]);
    expect(decideAt(s, req({ producer: P("a", 0, 5) }), 10)).toMatchObject({ kind: "accepted", effect: { evicts: null, restartsForgotten: false } });
    expect(decideAt(s, req({ producer: P("b", 0, 0) }), 10)).toMatchObject({ kind: "accepted", effect: { evicts: null, restartsForgotten: false } });
  });

  test("on a full stream a new producer takes the place of the longest idle one once it has been idle an hour", () => {
    const s = withProducers([["b", at(500)], ["a", at(100)]]);
    expect(decideAt(s, req({ producer: P("c", 0, 0) }), 100 + HOUR)).toMatchObject({ kind: "accepted", effect: { evicts: "a", restartsForgotten: false } });
  });

  test("with none idle an hour the new producer gets 429 PRODUCER_LIMIT, before a closed stream's 409", () => {
    const s = withProducers([["a", at(100)], ["b", at(500)]]);
    const d = decideAt({ ...s, closed: true }, req({ producer: P("c", 0, 0) }), 100 + HOUR - 1);
    expect(d).toMatchObject({ kind: "error", code: "PRODUCER_LIMIT", context: { incarnation: s.incarnation } });
    expect(d.kind === "error" && d.message.startsWith("producer_limit")).toBe(true);
  });

  test("producers already on a full stream go on writing, and a forgotten one restarts in its own place", () => {
    const s = withProducers([["a", at(0)], ["b", at(limits.idleTtlMs)]]);
    const now = limits.idleTtlMs + 10;
    expect(decideAt(s, req({ producer: P("b", 0, 5) }), now)).toMatchObject({ kind: "accepted", effect: { evicts: null } });
    expect(decideAt(s, req({ producer: P("a", 0, 0) }), now)).toMatchObject({ kind: "accepted", effect: { evicts: null, restartsForgotten: true } });
  });

  test("a table over a lowered limit does not grow: each new producer evicts one", () => {
    const s = withProducers([["a", at(0)], ["b", at(1)], ["c", at(2)]]);
    expect(decideAt(s, req({ producer: P("d", 0, 0) }), 2 + HOUR)).toMatchObject({ kind: "accepted", effect: { evicts: "a" } });
  });

  test("under an idle limit shorter than an hour, a forgotten producer makes way", () => {
    const short = { idleTtlMs: 1000, maxPerStream: 1 };
    const s = withProducers([["a", at(0)]]);
    expect(decideAt(s, req({ producer: P("b", 0, 0) }), 999, short)).toMatchObject({ code: "PRODUCER_LIMIT" });
    expect(decideAt(s, req({ producer: P("b", 0, 0) }), 1000, short)).toMatchObject({ kind: "accepted", effect: { evicts: "a" } });
  });

  test("requests without producer headers are never limited", () => {
    const s = withProducers([["a", at(0)], ["b", at(0)]]);
    expect(decideAt(s, req(), 1)).toMatchObject({ kind: "accepted" });
  });
});
