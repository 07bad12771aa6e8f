import { describe, expect, test } from "bun:test";
import { NO_QUOTAS, quotaCounts, quotaRefusal } from "./quota";

describe("quotas (--max-buckets, --max-streams-per-bucket)", () => {
  const caps = { maxBuckets: 2, maxStreamsPerBucket: 3 };
  test("an uncapped server counts nothing", () => {
    expect(quotaCounts(NO_QUOTAS, false, true)).toEqual({ bucketsUpTo: null, streamsUpTo: null });
    expect(quotaRefusal(NO_QUOTAS, { buckets: null, streams: null })).toBeNull();
  });
  test("buckets are counted only for a create that makes a new one, streams only for a create of a stream, each up to its cap", () => {
    expect(quotaCounts(caps, false, true)).toEqual({ bucketsUpTo: 2, streamsUpTo: 3 });
    expect(quotaCounts(caps, true, true)).toEqual({ bucketsUpTo: null, streamsUpTo: 3 });
    expect(quotaCounts(caps, false, false)).toEqual({ bucketsUpTo: 2, streamsUpTo: null });
  });
  test("a create that reaches past a cap is refused with QUOTA_EXCEEDED; one that fits is not", () => {
    expect(quotaRefusal(caps, { buckets: 2, streams: null })).toMatchObject({ code: "QUOTA_EXCEEDED", message: expect.stringMatching(/2 buckets/) });
    expect(quotaRefusal(caps, { buckets: 1, streams: 3 })).toMatchObject({ code: "QUOTA_EXCEEDED", message: expect.stringMatching(/3 streams/) });
    expect(quotaRefusal(caps, { buckets: 1, streams: 2 })).toBeNull();
    expect(quotaRefusal(caps, { buckets: null, streams: 2 })).toBeNull();
  });
});
