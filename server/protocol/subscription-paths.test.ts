import { describe, expect, test } from "bun:test";
import { subscriptionPathOf, subscriptionStreamKey, V1_SCOPE } from "./subscription-paths";

describe("subscription paths (DS §6, spec §1.4)", () => {
  test("on the v1 surface a bare name is in _default and bucket/stream in that bucket", () => {
    expect(subscriptionStreamKey(V1_SCOPE, "x")).toBe("_default/x");
    expect(subscriptionStreamKey(V1_SCOPE, "events/x")).toBe("events/x");
    expect(subscriptionStreamKey(V1_SCOPE, "ev/x")).toBeNull();
    expect(subscriptionStreamKey(V1_SCOPE, "events/x/y")).toBeNull();
    expect(subscriptionPathOf(V1_SCOPE, "_default", "x")).toBe("x");
    expect(subscriptionPathOf(V1_SCOPE, "events", "x")).toBe("events/x");
  });

  test("under a bucket, paths are that bucket's stream names, and other buckets are out of sight", () => {
    expect(subscriptionStreamKey("bkt1", "s")).toBe("bkt1/s");
    expect(subscriptionStreamKey("bkt1", "a/b")).toBeNull();
    expect(subscriptionPathOf("bkt1", "bkt1", "s")).toBe("s");
    expect(subscriptionPathOf("bkt1", "bkt2", "s")).toBeNull();
  });
});
