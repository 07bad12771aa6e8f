import { describe, expect, test } from "bun:test";
import { DEFAULT_LEASE_TTL_MS, parseSubscriptionConfig, sameConfig } from "./subscription-config";

const parsed = (body: unknown) => {
  const r = parseSubscriptionConfig(body);
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const refusal = (body: unknown) => {
  const r = parseSubscriptionConfig(body);
  return r.ok ? null : r.message;
};

describe("parseSubscriptionConfig (DS §6)", () => {
  test("a webhook on a pattern: slashes trimmed, the default lease, no description", () => {
    expect(parsed({ type: "webhook", pattern: "/events/*/", webhook: { url: "https://h.example/hook" } })).toEqual({
      type: "webhook",
      pattern: "events/*",
      streams: [],
      webhookUrl: "https://h.example/hook",
      wakeStream: null,
      leaseTtlMs: DEFAULT_LEASE_TTL_MS,
      description: null,
    });
  });

  test("explicit streams are a set in the order first named", () => {
    expect(parsed({ type: "pull-wake", streams: ["a/b", "/a/b", "c"], wake_stream: "wake/pool" }).streams).toEqual(["a/b", "c"]);
  });

  test("each missing or malformed field is refused with its own message", () => {
    expect(refusal([])).toContain("JSON object");
    expect(refusal({ type: "email", pattern: "x" })).toContain("type");
    expect(refusal({ type: "pull-wake", wake_stream: "w" })).toContain("pattern or streams");
    expect(refusal({ type: "pull-wake", streams: [1], wake_stream: "w" })).toContain("streams");
    expect(refusal({ type: "pull-wake", streams: "a", wake_stream: "w" })).toContain("streams");
    expect(refusal({ type: "pull-wake", pattern: "a/*" })).toContain("wake_stream");
    expect(refusal({ type: "webhook", pattern: "a/*" })).toContain("webhook.url");
    expect(refusal({ type: "webhook", pattern: "a/*", webhook: { url: "" } })).toContain("webhook.url");
    expect(refusal({ type: "pull-wake", pattern: "a/*", wake_stream: "w", description: 3 })).toContain("description");
  });

  test("lease_ttl_ms is an integer from 1000 to 600000", () => {
    const withTtl = (lease_ttl_ms: unknown) => refusal({ type: "pull-wake", pattern: "a/*", wake_stream: "w", lease_ttl_ms });
    expect(withTtl(999)).toContain("lease_ttl_ms");
    expect(withTtl(600_001)).toContain("lease_ttl_ms");
    expect(withTtl(1500.5)).toContain("lease_ttl_ms");
    expect(withTtl("1000")).toContain("lease_ttl_ms");
    expect(withTtl(1000)).toBeNull();
    expect(withTtl(600_000)).toBeNull();
  });

  test("two configurations are the same when they differ only in the order of their streams", () => {
    const a = parsed({ type: "pull-wake", streams: ["x", "y"], wake_stream: "w" });
    expect(sameConfig(a, parsed({ type: "pull-wake", streams: ["y", "x"], wake_stream: "w" }))).toBe(true);
    expect(sameConfig(a, parsed({ type: "pull-wake", streams: ["x", "y"], wake_stream: "w", lease_ttl_ms: 2000 }))).toBe(false);
    expect(sameConfig(a, parsed({ type: "pull-wake", streams: ["x", "y"], wake_stream: "w", description: "d" }))).toBe(false);
  });
});
