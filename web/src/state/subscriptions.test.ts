import { describe, expect, test } from "bun:test";
import { describeSubscription, SubscriptionsModel } from "./subscriptions";
import type { SubscriptionList, SubscriptionView } from "../api/subscriptions";

const NOW = Date.parse("2026-12-07T05:00:00Z");

const view = (patch: Partial<SubscriptionView> = {}): SubscriptionView => ({
  id: "p1",
  subscription_id: "p1",
  type: "pull-wake",
  pattern: "*",
  streams: [
    { path: "jobs", link_type: "glob", acked_offset: "-1" },
    { path: "audit", link_type: "explicit", acked_offset: "-1" },
  ],
  wake_stream: "wakes",
  lease_ttl_ms: 30_000,
  created_at: "2026-12-07T04:00:00.000Z",
  status: "active",
  generation: 3,
  wake: { wake_id: "w_abc", opened_at: "2026-12-07T04:59:50.000Z", holder: "worker-7", lease_expires_at: "2026-12-07T05:00:20.000Z" },
  delivery: { last_delivery_at: null, last_error: null, attempts: 0, next_attempt_at: null },
  ...patch,
});

describe("a subscription's state in words", () => {
  test("a claimed pull-wake: the pattern and explicit streams, the pending wake, who holds the lease and until when", () => {
    expect(describeSubscription(view(), NOW)).toEqual({
      id: "p1",
      type: "pull-wake",
      follows: "pattern *; streams audit",
      target: "wake stream wakes",
      wake: "generation 3, w_abc, pending since 2026-12-07 04:59:50Z (10s ago)",
      pending: true,
      lease: "worker-7 until 2026-12-07 05:00:20Z (in 20s)",
      lastDelivery: "— (workers claim)",
      lastError: null,
      attempts: "0",
    });
  });

  test("a failing webhook: no lease, its last delivery, last error and the next try", () => {
    const r = describeSubscription(
      view({
        id: "w1",
        type: "webhook",
        pattern: undefined,
        streams: [{ path: "orders", link_type: "explicit", acked_offset: "-1" }],
        wake_stream: undefined,
        webhook: { url: "https://example.com/hook", signing: { alg: "ed25519", kid: "k1", jwks_url: "x" } },
        wake: { wake_id: "w_1", opened_at: null, holder: null, lease_expires_at: null },
        delivery: { last_delivery_at: "2026-12-07T04:59:00.000Z", last_error: "HTTP 500", attempts: 2, next_attempt_at: "2026-12-07T05:00:04.000Z" },
      }),
      NOW,
    );
    expect(r).toMatchObject({ follows: "streams orders", target: "https://example.com/hook", lease: null, lastError: "HTTP 500", attempts: "2, next try in 4s" });
    expect(r.lastDelivery).toBe("2026-12-07 04:59:00Z (1m 0s ago)");
  });

  test("no wake outstanding shows the generation reached", () => {
    expect(describeSubscription(view({ wake: null }), NOW)).toMatchObject({ wake: "none (generation 3)", pending: false, lease: null });
  });
});

describe("the bucket's subscriptions model", () => {
  test("loads the bucket's list and asks again on its interval", async () => {
    const asked: string[] = [];
    const list: SubscriptionList = { bucket_id: "demo", subscriptions: [view()] };
    const m = new SubscriptionsModel(
      "demo",
      async (bucket) => {
        asked.push(bucket);
        return { ok: true, data: list };
      },
      20,
    );
    m.start();
    await Bun.sleep(70);
    m.stop();
    expect(asked.length).toBeGreaterThan(1);
    expect(new Set(asked)).toEqual(new Set(["demo"]));
    expect(m.rows.map((r) => r.id)).toEqual(["p1"]);
  });
});
