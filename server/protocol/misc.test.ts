import { describe, expect, test } from "bun:test";
import { isJsonType, isSseTextType, parseContentType } from "./content-type";
import { streamCursor } from "./cursor";
import { nextIncarnation } from "./incarnation";
import { isExpired, parseLifetime, parseRfc3339 } from "./lifetime";
import { formatOffset, parseOffsetToken } from "./offsets";
import { planReadStart } from "./read";
import { streamState } from "./testing-state";

describe("offsets (spec §3.1)", () => {
  test("canonical form round-trips; legacy digits are accepted; sentinels only where allowed", () => {
    expect(formatOffset(42)).toBe("0000000000000000_0000000000000042");
    expect(parseOffsetToken(formatOffset(42), false)).toEqual({ ok: true, value: { kind: "position", position: 42 } });
    expect(parseOffsetToken("42", false)).toEqual({ ok: true, value: { kind: "position", position: 42 } });
    expect(parseOffsetToken("-1", true)).toEqual({ ok: true, value: { kind: "start" } });
    expect(parseOffsetToken("now", true)).toEqual({ ok: true, value: { kind: "now" } });
    for (const bad of ["-1", "now", "", "9999999999999999_9999999999999999", "0000000000000000_00000000000000001", "1 2", "x"]) {
      expect(parseOffsetToken(bad, false).ok).toBe(false);
    }
  });
});

describe("content types (spec §1.5)", () => {
  test("[CW] normalization lowercases and keeps parameters", () => {
    expect(parseContentType(" Application/JSON;Charset=UTF-8 ")).toEqual({ ok: true, value: "application/json; charset=utf-8" });
    expect(isJsonType("application/json; charset=utf-8")).toBe(true);
    expect(isSseTextType("text/csv")).toBe(true);
    expect(isSseTextType("image/png")).toBe(false);
    expect(parseContentType("json").ok).toBe(false);
    expect(parseContentType("text/plain; charset").ok).toBe(false);
  });
});

describe("lifetimes (spec §7.1)", () => {
  test("strict RFC 3339 with a zone", () => {
    expect(parseRfc3339("2026-01-01T00:00:00Z")).toBe(Date.UTC(2026, 0, 1));
    expect(parseRfc3339("2026-01-01T01:00:00.5+01:00")).toBe(Date.UTC(2026, 0, 1) + 500);
    expect(parseRfc3339("2026-01-01T00:00:00")).toBeNull();
    expect(parseRfc3339("2025-02-29T00:00:00Z")).toBeNull();
  });
  test("sliding TTL counts from the last touch; Expires-At is absolute", () => {
    expect(isExpired(streamState({ ttlSeconds: 2, touchedAtMs: 1000 }), 2999)).toBe(false);
    expect(isExpired(streamState({ ttlSeconds: 2, touchedAtMs: 1000 }), 3000)).toBe(true);
    expect(isExpired(streamState({ expiresAtMs: 5000, touchedAtMs: 9000 }), 5000)).toBe(true);
    expect(parseLifetime("1", "2026-01-01T00:00:00Z").ok).toBe(false);
  });
});

describe("reads (spec §4.1, §5.4)", () => {
  test("[CW] 404 wins over 412, and for reads 416 wins over 412", () => {
    expect(planReadStart(undefined, { kind: "start" }, "1")).toMatchObject({ code: "STREAM_NOT_FOUND" });
    expect(planReadStart(streamState({ tail: 5, incarnation: "2" }), { kind: "position", position: 6 }, "1")).toMatchObject({ code: "OFFSET_OUT_OF_RANGE" });
    expect(planReadStart(streamState({ tail: 5, incarnation: "2" }), { kind: "position", position: 5 }, "1")).toMatchObject({ code: "STREAM_INCARNATION_MISMATCH" });
    expect(planReadStart(streamState({ tail: 5 }), { kind: "now" }, null)).toBe(5);
  });
});

describe("incarnation tokens and cursors", () => {
  test("[CW] tokens strictly increase, even when the clock does not", () => {
    expect(nextIncarnation(100, 50)).toBe(101);
    expect(nextIncarnation(100, 500)).toBe(500);
  });
  test("the cursor is the interval, or strictly greater than an echoed one", () => {
    const now = Date.UTC(2024, 9, 9) + 20_000 * 7 + 1;
    expect(streamCursor(now, null)).toBe("7");
    expect(streamCursor(now, "3")).toBe("7");
    expect(Number(streamCursor(now, "7", () => 0))).toBeGreaterThan(7);
    expect(Number(streamCursor(now, "900", () => 0.999))).toBeGreaterThan(900);
  });
});
