import { describe, expect, test } from "bun:test";
import { frames } from "../testing/frames";
import { frameMessages, MAX_BATCH_FRAMES, parseFrames } from "./append-batch";

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
