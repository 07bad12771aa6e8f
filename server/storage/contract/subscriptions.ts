// DS subscriptions as every engine keeps them (storage/subscriptions.ts): a record is saved whole
// and read back as saved, per scope and id; removing one says whether it existed; a secret is made
// once and then kept; and what was saved survives a reopen and a kill -9.

import { describe, expect } from "bun:test";
import { parseSubscriptionConfig } from "../../protocol/subscription-config";
import { newSubscription, onAppend } from "../../protocol/subscription-wake";
import type { Store } from "../store";
import { NO_DELIVERY, type StoredSubscription, type SubscriptionStore } from "../subscriptions";
import type { EngineFactory } from "./engine";
import { contract, T0 } from "./helpers";

/** A pull-wake subscription's record at version 1, one wake open. */
export function subscriptionRecord(scope: string, id: string): StoredSubscription {
  const parsed = parseSubscriptionConfig({ type: "pull-wake", pattern: "events/*", streams: ["manual/a"], wake_stream: "wake/pool", lease_ttl_ms: 1000 });
  if (!parsed.ok) throw new Error(parsed.message);
  const state = onAppend(newSubscription(id, parsed.value, [], () => 0), "events/x", () => 12, "wake-1", T0).state;
  return { version: 1, scope, origin: "http://127.0.0.1:4437", createdAtMs: T0, state, delivery: { ...NO_DELIVERY, lastError: "HTTP 500" } };
}

const subscriptionsOf = (store: Store): SubscriptionStore => store.subscriptions;

export function subscriptions(factory: EngineFactory): void {
  const t = (title: string, run: Parameters<typeof contract>[2]) => contract(factory, title, run);

  describe("subscriptions (DS §6–§7)", () => {
    t("a record is read back whole, per scope and id; saving the next version replaces it; removing says whether it existed", async ({ engine }) => {
      const subs = subscriptionsOf(engine.store);
      expect(await subs.all()).toEqual([]);
      const a = subscriptionRecord("v1", "s1");
      const b = subscriptionRecord("bkt1", "s1");
      expect(await subs.save(a)).toBe(true);
      expect(await subs.save(b)).toBe(true);
      expect(await subs.all()).toEqual([b, a]);
      expect(await subs.get("v1", "s1")).toEqual(a);
      expect(await subs.get("v1", "s2")).toBeUndefined();
      const changed = { ...a, version: 2, state: { ...a.state, generation: 7, wake: null } };
      expect(await subs.save(changed)).toBe(true);
      expect(await subs.all()).toEqual([b, changed]);
      expect(await subs.remove("v1", "s1")).toBe(true);
      expect(await subs.remove("v1", "s1")).toBe(false);
      expect(await subs.all()).toEqual([b]);
    });

    t("the list wakes are matched against shows every save and remove made before it is asked for", async ({ engine }) => {
      const subs = subscriptionsOf(engine.store);
      expect(await subs.forWakes()).toEqual([]);
      const a = subscriptionRecord("v1", "s1");
      expect(await subs.save(a)).toBe(true);
      expect(await subs.forWakes()).toEqual([a]);
      const changed = { ...a, version: 2, state: { ...a.state, generation: 3 } };
      expect(await subs.save(changed)).toBe(true);
      expect(await subs.forWakes()).toEqual([changed]);
      expect(await subs.remove("v1", "s1")).toBe(true);
      expect(await subs.forWakes()).toEqual([]);
    });

    t("a save that did not read the stored version changes nothing: of two servers changing one subscription, one wins", async ({ engine }) => {
      const subs = subscriptionsOf(engine.store);
      const a = subscriptionRecord("v1", "s1");
      expect(await subs.save(a)).toBe(true);
      expect(await subs.save(a)).toBe(false);
      const mine = { ...a, version: 2, state: { ...a.state, generation: 2 } };
      const theirs = { ...a, version: 2, state: { ...a.state, generation: 3 } };
      // Which of two racing saves wins is the engine's to decide (connections of a pool race); exactly one does.
      const won = await Promise.all([subs.save(mine), subs.save(theirs)]);
      expect(won.filter(Boolean)).toEqual([true]);
      expect(await subs.get("v1", "s1")).toEqual(won[0] ? mine : theirs);
      expect(await subs.save({ ...a, version: 5 })).toBe(false);
      expect(await subs.save(subscriptionRecord("v1", "new"))).toBe(true);
    });

    t("a secret is made once, then kept", async ({ engine }) => {
      const subs = subscriptionsOf(engine.store);
      expect(await subs.secret("k", () => "first")).toBe("first");
      expect(await subs.secret("k", () => "second")).toBe("first");
      expect(await subs.secret("other", () => "third")).toBe("third");
    });

    if (!factory.durable) return;

    t("records and secrets survive a reopen and a kill -9", async ({ engine }) => {
      const subs = subscriptionsOf(engine.store);
      const a = subscriptionRecord("v1", "s1");
      await subs.save(a);
      await subs.secret("k", () => "kept");
      const reopened = subscriptionsOf(await engine.reopen());
      expect(await reopened.all()).toEqual([a]);
      const b = subscriptionRecord("v1", "s2");
      expect(await reopened.save(b)).toBe(true);
      const crashed = subscriptionsOf(await engine.crash());
      expect(await crashed.all()).toEqual([a, b]);
      expect(await crashed.secret("k", () => "new")).toBe("kept");
    });
  });
}
