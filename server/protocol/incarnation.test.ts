import { describe, expect, test } from "bun:test";
import { incarnationMismatch, parseIncarnationToken } from "./incarnation";

describe("Stream-Incarnation is opaque (spec §5.4) [CW]", () => {
  test("any value a header can carry is a token, compared later for equality", () => {
    for (const v of ["1767225600000", "abc", "ursula-7f3a", "", "with space\tand tab", "caf\u00e9", "x".repeat(256)]) {
      expect(parseIncarnationToken(v)).toEqual({ ok: true, value: v });
    }
  });
  test("only bytes no header may carry, or more than 256 bytes, are malformed", () => {
    for (const v of ["a\u0000b", "a\rb", "a\nb", "a\u001fb", "a\u007fb", "\u20ac", "x".repeat(257)]) {
      expect(parseIncarnationToken(v)).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    }
  });
  test("a token that is not the current one is a 412 naming the current one, and says only that", () => {
    const e = incarnationMismatch({ incarnation: "7", tail: 3 }, "never-issued")!;
    expect(e).toMatchObject({ code: "STREAM_INCARNATION_MISMATCH", context: { incarnation: "7", nextOffset: 3 } });
    expect(e.message).toBe('Stream-Incarnation "never-issued" does not name the current incarnation 7 of this stream');
    expect(incarnationMismatch({ incarnation: "7", tail: 3 }, "7")).toBeNull();
    expect(incarnationMismatch({ incarnation: "7", tail: 3 }, null)).toBeNull();
  });
});
