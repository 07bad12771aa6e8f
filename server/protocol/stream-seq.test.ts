import { describe, expect, test } from "bun:test";
import { MAX_STREAM_SEQ_BYTES, parseStreamSeq, streamSeqAccepts } from "./stream-seq";

const value = (raw: string | null) => {
  const r = parseStreamSeq(raw);
  if (!r.ok) throw new Error(r.error.code);
  return r.value;
};

describe("Stream-Seq (spec §5.2) [CW]", () => {
  test('[CW] the comparison is bytewise, not numeric: "10" sorts before "9"', () => {
    expect(streamSeqAccepts("9", "10")).toBe(false);
    expect(streamSeqAccepts("09", "10")).toBe(true);
    expect(streamSeqAccepts("a", "B")).toBe(false);
  });
  test("[CW] accepted only when strictly greater than the stored value", () => {
    expect(streamSeqAccepts("005", "005")).toBe(false);
    expect(streamSeqAccepts("005", "004")).toBe(false);
    expect(streamSeqAccepts("005", "006")).toBe(true);
  });
  test("[CW] a stream with no stored value accepts any value", () => {
    expect(streamSeqAccepts(null, "")).toBe(true);
    expect(streamSeqAccepts(null, "0")).toBe(true);
  });
  test("[CW] values must be printable ASCII: a header with any other byte is ignored, not rejected", () => {
    expect(value("00\u00e9")).toBeNull();
    expect(value("00\u0001")).toBeNull();
    expect(value("00\u007f")).toBeNull();
    expect(value("~ !")).toBe("~ !");
  });
  test("[CW] a value is at most 256 bytes: longer is INVALID_STREAM_SEQ", () => {
    expect(value("x".repeat(MAX_STREAM_SEQ_BYTES))).toHaveLength(MAX_STREAM_SEQ_BYTES);
    const r = parseStreamSeq("x".repeat(MAX_STREAM_SEQ_BYTES + 1));
    expect(r.ok ? "ok" : r.error.code).toBe("INVALID_STREAM_SEQ");
  });
  test("[CW] an absent or blank header means no check", () => {
    expect(value(null)).toBeNull();
    expect(value("   ")).toBeNull();
  });
});
