// Every mapping from a refusal to its typed error, built from the headers the protocol puts on
// each one (docs/client.md, the error table). A mapping that drifts fails here, not in a user's
// retry loop.
import { describe, expect, test } from "bun:test";
import {
  errorFromParts,
  errorFromResponse,
  IncarnationMismatch,
  OutcomeUnknown,
  ProducerFenced,
  ProducerSeqConflict,
  StreamClosed,
  StreamGone,
  StreamNotFound,
  StreamSeqConflict,
  UrsaError,
} from "./errors.js";

const body = (code: string, message = "refused") => JSON.stringify({ error: { code, message } });
const map = (status: number, headers: Record<string, string>, text = "") => errorFromParts("POST http://x/b/s", status, new Headers(headers), text);

describe("errorFromParts", () => {
  test("409 with Stream-Last-Seq is StreamSeqConflict carrying lastSeq and nextOffset", () => {
    const e = map(409, { "Stream-Last-Seq": "00000000000000000003", "Stream-Next-Offset": "0000000000000000_0000000000000040" }, body("STREAM_SEQ_CONFLICT"));
    expect(e).toBeInstanceOf(StreamSeqConflict);
    expect(e).toBeInstanceOf(UrsaError);
    expect(e).toMatchObject({ status: 409, code: "STREAM_SEQ_CONFLICT", lastSeq: "00000000000000000003", nextOffset: "0000000000000000_0000000000000040" });
    expect(e.message).toContain("POST http://x/b/s: 409 STREAM_SEQ_CONFLICT: refused");
  });

  test("Stream-Last-Seq decides, not the body: a 409 without it is never a StreamSeqConflict", () => {
    // Ursula v0.9.0, Conditional Writes: "A 409 with Stream-Last-Seq comes only from the Stream-Seq check".
    const e = map(409, { "Stream-Next-Offset": "0000000000000000_0000000000000040" }, body("CONTENT_TYPE_MISMATCH"));
    expect(e).not.toBeInstanceOf(StreamSeqConflict);
    expect(e.constructor).toBe(UrsaError);
    expect(e).toMatchObject({ status: 409, code: "CONTENT_TYPE_MISMATCH" });
  });

  test("409 with Stream-Closed: true is StreamClosed with the final tail", () => {
    const e = map(409, { "Stream-Closed": "true", "Stream-Next-Offset": "0000000000000000_0000000000000009" }, body("STREAM_CLOSED"));
    expect(e).toBeInstanceOf(StreamClosed);
    expect(e).toMatchObject({ status: 409, code: "STREAM_CLOSED", nextOffset: "0000000000000000_0000000000000009" });
  });

  test("409 with Producer-Expected-Seq is ProducerSeqConflict with expected and received seq", () => {
    const e = map(409, { "Producer-Expected-Seq": "4", "Producer-Received-Seq": "6" }, body("PRODUCER_SEQ_CONFLICT"));
    expect(e).toBeInstanceOf(ProducerSeqConflict);
    expect(e).toMatchObject({ status: 409, code: "PRODUCER_SEQ_CONFLICT", expectedSeq: 4, receivedSeq: 6 });
  });

  test("412 is IncarnationMismatch carrying the current token", () => {
    const e = map(412, { "Stream-Incarnation": "77" }, body("STREAM_INCARNATION_MISMATCH"));
    expect(e).toBeInstanceOf(IncarnationMismatch);
    expect(e).toMatchObject({ status: 412, code: "STREAM_INCARNATION_MISMATCH", incarnation: "77" });
  });

  test("412 without a body (a HEAD) is still IncarnationMismatch; without a token its incarnation is null", () => {
    expect(map(412, { "Stream-Incarnation": "9" })).toMatchObject({ incarnation: "9", code: "STREAM_INCARNATION_MISMATCH" });
    const missing = map(412, {}, body("STREAM_INCARNATION_MISMATCH"));
    expect(missing).toBeInstanceOf(IncarnationMismatch);
    expect((missing as IncarnationMismatch).incarnation).toBeNull();
  });

  test("412 RECORD_PRECONDITION_FAILED is about the same stream: a plain UrsaError", () => {
    const e = map(412, { "Stream-Incarnation": "5" }, body("RECORD_PRECONDITION_FAILED"));
    expect(e).not.toBeInstanceOf(IncarnationMismatch);
    expect(e).toMatchObject({ status: 412, code: "RECORD_PRECONDITION_FAILED" });
  });

  test("403 PRODUCER_EPOCH_STALE is ProducerFenced with the epoch now in charge", () => {
    const e = map(403, { "Producer-Epoch": "2" }, body("PRODUCER_EPOCH_STALE"));
    expect(e).toBeInstanceOf(ProducerFenced);
    expect(e).toMatchObject({ status: 403, code: "PRODUCER_EPOCH_STALE", currentEpoch: 2 });
  });

  test("a 403 that is not about a producer (a token without access) stays a plain UrsaError", () => {
    const e = map(403, {}, body("FORBIDDEN", "token may not see this bucket"));
    expect(e).not.toBeInstanceOf(ProducerFenced);
    expect(e).toMatchObject({ status: 403, code: "FORBIDDEN" });
  });

  test("404 is StreamNotFound", () => {
    expect(map(404, {}, body("STREAM_NOT_FOUND"))).toBeInstanceOf(StreamNotFound);
    expect(map(404, {})).toMatchObject({ status: 404, code: "STREAM_NOT_FOUND" });
  });

  test("410 is StreamGone with the earliest offset, from Stream-Earliest-Offset or else Stream-Next-Offset", () => {
    const both = map(410, { "Stream-Earliest-Offset": "0000000000000000_0000000000000020", "Stream-Next-Offset": "x" }, body("STREAM_GONE"));
    expect(both).toBeInstanceOf(StreamGone);
    expect(both).toMatchObject({ status: 410, code: "STREAM_GONE", earliestOffset: "0000000000000000_0000000000000020" });
    expect(map(410, { "Stream-Next-Offset": "0000000000000000_0000000000000021" })).toMatchObject({ earliestOffset: "0000000000000000_0000000000000021" });
  });

  test("any other status is a plain UrsaError with the body's code, or one named after the status", () => {
    expect(map(400, {}, body("INVALID_QUERY"))).toMatchObject({ status: 400, code: "INVALID_QUERY" });
    expect(map(401, {})).toMatchObject({ status: 401, code: "UNAUTHORIZED" });
    expect(map(416, {})).toMatchObject({ status: 416, code: "OFFSET_OUT_OF_RANGE" });
    expect(map(503, {})).toMatchObject({ status: 503, code: "BACKPRESSURE" });
    expect(map(418, {})).toMatchObject({ status: 418, code: "HTTP_418" });
    for (const s of [400, 401, 416, 503, 418]) expect(map(s, {}).constructor).toBe(UrsaError);
  });

  test("a body that is not JSON becomes the message, and the status names the code", () => {
    const e = map(409, {}, "plain text refusal");
    expect(e).toMatchObject({ status: 409, code: "CONFLICT" });
    expect(e.message).toContain("plain text refusal");
  });

  test("every error keeps the response headers and its class name", () => {
    const e = map(412, { "Stream-Incarnation": "3", "Stream-Next-Offset": "t" });
    expect(e.headers.get("Stream-Next-Offset")).toBe("t");
    expect(e.name).toBe("IncarnationMismatch");
  });
});

test("errorFromResponse reads the body of a Response", async () => {
  const res = new Response(body("STREAM_SEQ_CONFLICT", "not greater"), { status: 409, headers: { "Stream-Last-Seq": "00000000000000000001" } });
  const e = await errorFromResponse("POST u", res);
  expect(e).toBeInstanceOf(StreamSeqConflict);
  expect(e.message).toBe("POST u: 409 STREAM_SEQ_CONFLICT: not greater");
});

test("OutcomeUnknown has status 0 and keeps the network error as its cause", () => {
  const cause = new TypeError("fetch failed");
  const e = new OutcomeUnknown("no answer", cause);
  expect(e).toBeInstanceOf(UrsaError);
  expect(e).toMatchObject({ status: 0, code: "OUTCOME_UNKNOWN", cause });
});
