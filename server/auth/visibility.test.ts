// The one rule of what a request may see (docs/security.md, "Tenants").

import { describe, expect, test } from "bun:test";
import { ANONYMOUS, OPEN, type Principal } from "./principal";
import { READ } from "./scopes";
import { visibilityOf, visibleKey } from "./visibility";

const limited = (...buckets: string[]): Principal => ({ kind: "token", scopes: READ, buckets: new Set(buckets), acceptedUntilMs: null });
const unlimited: Principal = { kind: "jwt", scopes: READ, buckets: null, acceptedUntilMs: null };

describe("visibility", () => {
  test("a token limited to some buckets sees those and no other", () => {
    const v = visibilityOf(limited("tenant-a", "shared"), false);
    expect(v.all).toBe(false);
    expect(["tenant-a", "shared", "tenant-b", "_default"].map(v.sees)).toEqual([true, true, false, false]);
  });
  test("no authentication, a token without a bucket limit, and --public-read see every bucket", () => {
    for (const v of [visibilityOf(OPEN, false), visibilityOf(unlimited, false), visibilityOf(limited("tenant-a"), true), visibilityOf(ANONYMOUS, true)]) {
      expect(v.all).toBe(true);
      expect(v.sees("tenant-b")).toBe(true);
    }
  });
  test("a stream path key is kept only when its bucket is visible", () => {
    const v = visibilityOf(limited("tenant-a"), false);
    expect(visibleKey(v, "tenant-a/feed")).toBe("tenant-a/feed");
    expect(visibleKey(v, "tenant-b/secret-plan")).toBeNull();
    // A prefix of a visible bucket's name is another bucket.
    expect(visibleKey(v, "tenant-a2/x")).toBeNull();
  });
});
