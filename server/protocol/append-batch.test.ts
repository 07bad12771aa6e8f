import { describe, expect, test } from "bun:test";
import { frames } from "../testing/frames";
import { decideBatch, frameMessages, MAX_BATCH_FRAMES, parseFrames } from "./append-batch";
import { DEFAULT_PRODUCER_LIMITS } from "./producer";
import { streamState } from "./testing-state";

const text = (b: Uint8Array) => new TextDecoder().decode(b);

describe("append-batch framing (spec §2.10)", () => {
  test("u32 big-endian lengths, each frame a view of its payload", () => {
    const body = frames(["ab", "c".repeat(300)]);
    expect([...body.subarray(0, 4)]).toEqual([0, 0, 0, 2]);
    expect([...body.subarray(6, 10)]).toEqual([0, 0, 1, 44]);
    const parsed = parseFrames(body);
    expect(parsed.ok && parsed.value.map(text)).toEqual(["ab", "c".repeat(300)]);
  });
  test("no frames, a cut length, a cut frame and an empty frame are refused", () => {
    expect(parseFrames(new Uint8Array(0))).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    expect(parseFrames(new Uint8Array([0, 0, 0]))).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    expect(parseFrames(new Uint8Array([0, 0, 0, 3, 1, 2]))).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    expect(parseFrames(new Uint8Array([0, 0, 0, 0]))).toMatchObject({ ok: false, error: { code: "EMPTY_APPEND" } });
  });
  test(`at most ${MAX_BATCH_FRAMES} frames`, () => {
    expect(parseFrames(frames(Array.from({ length: MAX_BATCH_FRAMES }, () => "x"))).ok).toBe(true);
    expect(parseFrames(frames(Array.from({ length: MAX_BATCH_FRAMES + 1 }, () => "x")))).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
  });
  test("JSON frames are flattened one level each; an invalid or [] frame refuses the batch", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const parsed = frameMessages([enc("[1, [2]]"), enc('{"a" : 1}')], "application/json");
    expect(parsed.ok && parsed.value.map((f) => f.map(text))).toEqual([["1\n", "[2]\n"], ['{"a":1}\n']]);
    expect(frameMessages([enc("1"), enc("[]")], "application/json")).toMatchObject({ ok: false, error: { code: "EMPTY_JSON_ARRAY", message: expect.stringMatching(/^frame 1: /) } });
    expect(frameMessages([enc("{")], "application/json")).toMatchObject({ ok: false, error: { code: "INVALID_JSON" } });
    const bytes = frameMessages([enc("[]")], "application/octet-stream");
    expect(bytes.ok && bytes.value.map((f) => f.map(text))).toEqual([["[]"]]);
  });
});

describe("a batch decided frame by frame (spec §2.10)", () => {
  const clock = { nowMs: 5, limits: DEFAULT_PRODUCER_LIMITS };
  const bytes = (...sizes: number[]) => sizes.map((n) => [new Uint8Array(n)]);

  test("each accepted frame starts where the one before it ended, and is acked with its own tail", () => {
    const state = streamState({ contentType: "application/octet-stream", tail: 10 });
    const { acks, appends } = decideBatch(state, "application/octet-stream", bytes(3, 4), clock);
    expect(appends.map((e) => [e.start, e.bytes])).toEqual([[10, 3], [13, 4]]);
    expect(acks).toEqual([{ ok: true, nextOffset: 13 }, { ok: true, nextOffset: 17 }]);
  });

  test("a frame that fails is acked with its error and applies nothing, and the others are decided on their own", () => {
    const closed = streamState({ contentType: "application/octet-stream", tail: 10, closed: true });
    const refused = decideBatch(closed, "application/octet-stream", bytes(3, 4), clock);
    expect(refused.appends).toEqual([]);
    expect(refused.acks).toMatchObject([{ ok: false, error: { code: "STREAM_CLOSED" }, closed: true }, { ok: false, closed: true }]);
    const wrongType = decideBatch(streamState({ contentType: "application/octet-stream" }), "text/plain", bytes(3), clock);
    expect(wrongType.appends).toEqual([]);
    expect(wrongType.acks[0]).toMatchObject({ ok: false, nextOffset: 10 });
  });
});
