import { describe, expect, test } from "bun:test";
import { catchUpEtag, decideBoundary, decideRead, decideWake, headEtag, notModified, READ_MAX_BYTES, type ReadRequest } from "./read";
import { streamState } from "./testing-state";

const request = (overrides: Partial<ReadRequest> = {}): ReadRequest => ({ offset: { kind: "start" }, ndjson: false, maxBytes: null, ...overrides });
const at = (position: number) => ({ kind: "position" as const, position });

describe("decideRead: where a read starts and which refusal wins (spec §4.1, §5.4)", () => {
  test("404 for a stream that does not exist, whatever else the request says", () => {
    expect(decideRead(undefined, request({ offset: at(99) }), "1")).toMatchObject({ kind: "error", code: "STREAM_NOT_FOUND" });
  });

  test("a soft-deleted stream is refused as deleted, not read from its forks' bytes", () => {
    expect(decideRead(streamState({ softDeleted: true }), request(), null)).toMatchObject({ kind: "error", code: "STREAM_SOFT_DELETED" });
  });

  test("[CW] 410 below the retained floor, offset=-1 included, naming the floor", () => {
    const s = streamState({ retained: 4, tail: 10 });
    expect(decideRead(s, request(), null)).toMatchObject({ kind: "error", code: "STREAM_GONE", context: { nextOffset: 4, earliestOffset: 4 } });
    expect(decideRead(s, request({ offset: at(3) }), null)).toMatchObject({ code: "STREAM_GONE" });
    expect(decideRead(s, request({ offset: at(4) }), null)).toMatchObject({ kind: "serve", start: 4 });
  });

  test("416 beyond the tail, naming the tail", () => {
    expect(decideRead(streamState({ tail: 5 }), request({ offset: at(6) }), null)).toMatchObject({ kind: "error", code: "OFFSET_OUT_OF_RANGE", context: { nextOffset: 5 } });
  });

  test("[CW] 410 and 416 win over 412", () => {
    const s = streamState({ tail: 5, retained: 2, incarnation: "2" });
    expect(decideRead(s, request({ offset: at(1) }), "1")).toMatchObject({ code: "STREAM_GONE" });
    expect(decideRead(s, request({ offset: at(6) }), "1")).toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
  });

  test("[CW] 412 when the named incarnation is not the stream's", () => {
    expect(decideRead(streamState({ incarnation: "2" }), request(), "1")).toMatchObject({ code: "STREAM_INCARNATION_MISMATCH" });
    expect(decideRead(streamState({ incarnation: "2" }), request(), "2")).toMatchObject({ kind: "serve" });
  });

  test("offset=now starts at the tail", () => {
    expect(decideRead(streamState({ tail: 7 }), request({ offset: { kind: "now" } }), null)).toMatchObject({ kind: "serve", start: 7 });
  });

  test("max_bytes is clamped to the most one response carries (spec §8.1)", () => {
    expect(decideRead(streamState(), request({ maxBytes: 3 }), null)).toMatchObject({ limit: 3 });
    expect(decideRead(streamState(), request({ maxBytes: READ_MAX_BYTES + 1 }), null)).toMatchObject({ limit: READ_MAX_BYTES });
    expect(decideRead(streamState(), request(), null)).toMatchObject({ limit: READ_MAX_BYTES });
  });

  test("a JSON stream is read as an array unless NDJSON is asked for; other types never are", () => {
    expect(decideRead(streamState({ contentType: "application/json" }), request(), null)).toMatchObject({ arrayMode: true });
    expect(decideRead(streamState({ contentType: "application/json" }), request({ ndjson: true }), null)).toMatchObject({ arrayMode: false });
    expect(decideRead(streamState({ contentType: "text/plain" }), request(), null)).toMatchObject({ arrayMode: false });
  });

  test("the plan carries the state it was decided on", () => {
    const s = streamState();
    expect(decideRead(s, request(), null)).toMatchObject({ state: s });
  });
});

describe("decideBoundary: an array read starts on a message (spec §4.2)", () => {
  test("an offset inside a JSON message is refused, after every other refusal", () => {
    const plan = decideRead(streamState(), request({ offset: at(3) }), null);
    expect(decideBoundary(plan, false)).toMatchObject({ kind: "error", code: "INVALID_OFFSET" });
    expect(decideBoundary(plan, true)).toBe(plan);
    const refused = decideRead(undefined, request(), null);
    expect(decideBoundary(refused, false)).toBe(refused);
  });
});

describe("decideWake: what a long-poll or SSE reader gets when it wakes", () => {
  const waited = streamState({ id: 1, tail: 10 });

  test("a stream deleted while the reader waited is 404", () => {
    expect(decideWake(1, undefined, 10, null)).toMatchObject({ kind: "error", code: "STREAM_NOT_FOUND" });
    expect(decideWake(1, { ...waited, softDeleted: true }, 10, "100")).toMatchObject({ code: "STREAM_NOT_FOUND" });
  });

  test("[CW] a stream recreated while the reader waited is 412 with the new token when the reader names one, else 404", () => {
    const recreated = streamState({ id: 2, incarnation: "200", tail: 3 });
    expect(decideWake(1, recreated, 10, "100")).toMatchObject({ code: "STREAM_INCARNATION_MISMATCH", context: { incarnation: "200", nextOffset: 3 } });
    expect(decideWake(1, recreated, 10, null)).toMatchObject({ code: "STREAM_NOT_FOUND" });
  });

  test("retention that overtook the reader is 410 (spec §3.4)", () => {
    expect(decideWake(1, { ...waited, retained: 12, tail: 20 }, 10, null)).toMatchObject({ code: "STREAM_GONE", context: { earliestOffset: 12 } });
  });

  test("bytes past the reader's offset are served; none leave it up to date", () => {
    expect(decideWake(1, { ...waited, tail: 11 }, 10, null)).toBe("serve");
    expect(decideWake(1, waited, 10, null)).toBe("up-to-date");
    expect(decideWake(1, { ...waited, closed: true }, 10, null)).toBe("up-to-date");
  });
});

describe("ETags and 304 (spec §4.6, §2.12)", () => {
  test("a catch-up's tag names the incarnation, the range, the mode and a close", () => {
    const s = streamState({ incarnation: "7" });
    expect(catchUpEtag(s, 0, 10, true, false)).toBe('"7:0:10:a"');
    expect(catchUpEtag(s, 2, 10, false, true)).toBe('"7:2:10:b:c"');
  });

  test("HEAD's tag moves with the tail, the floor, the snapshot and a close, not the attributes", () => {
    const s = streamState({ incarnation: "7", tail: 10 });
    expect(headEtag(s)).toBe('"7:10:h"');
    expect(headEtag({ ...s, attrsId: 3 })).toBe(headEtag(s));
    expect(headEtag({ ...s, retained: 4, closed: true })).toBe('"7:10:h:r4:c"');
    expect(headEtag({ ...s, snapshot: { blobId: 1, offset: 4, contentType: "text/plain", digest: "ab".repeat(32), size: 1 } })).toBe(`"7:10:h:s4.${"ab".repeat(8)}"`);
  });

  test("If-None-Match answers 304 for the tag, its weak form, one of a list or *", () => {
    expect(notModified('"x"', '"x"')).toBe(true);
    expect(notModified('W/"x"', '"x"')).toBe(true);
    expect(notModified('"y", "x"', '"x"')).toBe(true);
    expect(notModified("*", '"x"')).toBe(true);
    expect(notModified('"y"', '"x"')).toBe(false);
    expect(notModified(null, '"x"')).toBe(false);
  });
});
