import { describe, expect, test } from "bun:test";
import { parseSubscriptionConfig, type SubscriptionConfig } from "./subscription-config";
import { applyAcks, autoAck, checkFence, claim, expireLease, finishWake, newSubscription, onAppend, streamGone, unlinkExplicit, type SubscriptionState, type Tails } from "./subscription-wake";

const config = (body: Record<string, unknown>): SubscriptionConfig => {
  const r = parseSubscriptionConfig({ lease_ttl_ms: 1000, ...body });
  if (!r.ok) throw new Error(r.message);
  return r.value;
};
const webhook = config({ type: "webhook", pattern: "events/*", webhook: { url: "https://h.example/hook" } });
const pull = config({ type: "pull-wake", pattern: "events/*", wake_stream: "wake/pool" });
const tailsOf = (t: Record<string, number>): Tails => (p) => t[p] ?? 0;
const ok = (r: { ok: true; state: SubscriptionState } | { ok: false }) => {
  if (!r.ok) throw new Error(`refused: ${JSON.stringify(r)}`);
  return r.state;
};

describe("subscription wakes (DS §6–§7)", () => {
  test("a new subscription follows existing matching streams from their tails, explicit ones too", () => {
    const s = newSubscription("s", { ...webhook, streams: ["manual/a"] }, ["events/old", "other/x"], tailsOf({ "events/old": 40, "manual/a": 7 }));
    expect(s.links).toEqual([
      { path: "manual/a", explicit: true, glob: false, ackedOffset: 7 },
      { path: "events/old", explicit: false, glob: true, ackedOffset: 40 },
    ]);
    expect(s.generation).toBe(0);
  });

  test("an append to a new matching stream links it from its start and opens a leased webhook wake", () => {
    const s = newSubscription("s", webhook, [], tailsOf({}));
    const { state, opened } = onAppend(s, "events/a", tailsOf({ "events/a": 10 }), "w1", 5000);
    expect(opened).toBe(true);
    expect(state.generation).toBe(1);
    expect(state.wake).toEqual({ id: "w1", snapshot: { "events/a": 10 }, holder: null, leaseUntilMs: 6000, openedAtMs: 5000 });
    expect(onAppend(s, "other/a", tailsOf({ "other/a": 3 }), "w1", 5000).opened).toBe(false);
  });

  test("an append after a wake's lease ran out opens the next generation, though no timer ended the wake", () => {
    const s = onAppend(newSubscription("s", webhook, [], tailsOf({})), "events/a", tailsOf({ "events/a": 10 }), "w1", 0).state;
    expect(onAppend(s, "events/a", tailsOf({ "events/a": 20 }), "w2", 999).opened).toBe(false);
    const late = onAppend(s, "events/a", tailsOf({ "events/a": 20 }), "w2", 1000);
    expect(late.opened).toBe(true);
    expect(late.state.generation).toBe(2);
    expect(late.state.wake?.id).toBe("w2");
  });

  test("a pull-wake subscription never follows its own wake stream, even when its pattern takes it in", () => {
    const own = { ...pull, pattern: "*", wakeStream: "wakes" };
    const s = newSubscription("s", own, [], tailsOf({}));
    expect(onAppend(s, "wakes", tailsOf({ wakes: 30 }), "w1", 0)).toEqual({ state: s, opened: false });
    expect(onAppend(s, "jobs", tailsOf({ jobs: 3 }), "w1", 0).opened).toBe(true);
  });

  test("while a wake is out, further appends open none: one generation at a time", () => {
    const s = onAppend(newSubscription("s", webhook, [], tailsOf({})), "events/a", tailsOf({ "events/a": 10 }), "w1", 0).state;
    const again = onAppend(s, "events/b", tailsOf({ "events/a": 10, "events/b": 4 }), "w2", 1);
    expect(again.opened).toBe(false);
    expect(again.state.generation).toBe(1);
    expect(again.state.links.map((l) => l.path)).toEqual(["events/a", "events/b"]);
  });

  test("the outstanding wake passes the fence; a stale generation, another wake id or a spent lease is FENCED", () => {
    const s = onAppend(newSubscription("s", webhook, [], tailsOf({})), "events/a", tailsOf({ "events/a": 10 }), "w1", 0).state;
    expect(checkFence(s, { generation: 1, wakeId: "w1" }, 999).ok).toBe(true);
    for (const [ref, now] of [[{ generation: 0, wakeId: "w1" }, 0], [{ generation: 1, wakeId: "w0" }, 0], [{ generation: "1", wakeId: "w1" }, 0], [{ generation: 1, wakeId: "w1" }, 1000]] as const) {
      const r = checkFence(s, ref, now);
      expect(r.ok ? null : r.refusal.code).toBe("FENCED");
    }
    const done = finishWake(s, tailsOf({ "events/a": 10 }), "w2", 1).state;
    expect(checkFence(done, { generation: 1, wakeId: "w1" }, 1).ok).toBe(false);
  });

  test("acks move cursors forward all or none; unknown streams, regressions and offsets past the tail are INVALID_OFFSET", () => {
    const s = newSubscription("s", { ...pull, streams: ["a"] }, [], tailsOf({ a: 5 }));
    const tails = tailsOf({ a: 20 });
    expect(ok(applyAcks(s, [{ stream: "a", offset: 12 }], tails)).links[0]!.ackedOffset).toBe(12);
    for (const acks of [[{ stream: "b", offset: 1 }], [{ stream: "a", offset: 4 }], [{ stream: "a", offset: 21 }], [{ stream: "a", offset: 10 }, { stream: "b", offset: 1 }]]) {
      const r = applyAcks(s, acks, tails);
      expect(r.ok ? null : r.refusal.code).toBe("INVALID_OFFSET");
    }
  });

  test("done acks the snapshot; the next wake opens with a new generation only while work is pending", () => {
    const s = onAppend(newSubscription("s", webhook, [], tailsOf({})), "events/a", tailsOf({ "events/a": 10 }), "w1", 0).state;
    const acked = autoAck(s);
    expect(acked.links[0]!.ackedOffset).toBe(10);
    expect(finishWake(acked, tailsOf({ "events/a": 10 }), "w2", 0)).toEqual({ state: { ...acked, wake: null }, next: false });
    const more = finishWake(acked, tailsOf({ "events/a": 15 }), "w2", 0);
    expect(more.next).toBe(true);
    expect(more.state.generation).toBe(2);
    expect(more.state.wake?.snapshot).toEqual({ "events/a": 15 });
  });

  test("a pull-wake claim has one holder at a time, needs work, and frees itself when its lease runs out", () => {
    const tails = tailsOf({ "events/a": 10 });
    const s = onAppend(newSubscription("s", pull, [], tailsOf({})), "events/a", tails, "w1", 0).state;
    expect(s.wake?.holder).toBeNull();
    const held = ok(claim(s, "worker-1", tails, "unused", 100));
    expect(held.wake).toMatchObject({ id: "w1", holder: "worker-1", leaseUntilMs: 1100 });
    expect(held.generation).toBe(1);
    const busy = claim(held, "worker-2", tails, "unused", 200);
    expect(busy).toEqual({ ok: false, refusal: { code: "ALREADY_CLAIMED", message: expect.any(String), holder: "worker-1", generation: 1 } });
    expect(ok(claim(held, "worker-2", tails, "w2", 1100)).wake).toMatchObject({ holder: "worker-2", id: "w2" });
    expect(ok(claim(held, "worker-2", tails, "w2", 1100)).generation).toBe(2);
    const idle = newSubscription("s", pull, ["events/a"], tails);
    const none = claim(idle, "worker-1", tails, "w1", 0);
    expect(none.ok ? null : none.refusal.code).toBe("NO_PENDING_WORK");
  });

  test("an expired lease frees the wake but keeps its generation spent", () => {
    const s = ok(claim(onAppend(newSubscription("s", pull, [], tailsOf({})), "events/a", tailsOf({ "events/a": 1 }), "w1", 0).state, "k", tailsOf({ "events/a": 1 }), "x", 0));
    expect(expireLease(s, 999)).toBe(s);
    expect(expireLease(s, 1000)).toEqual({ ...s, wake: null });
  });

  test("a followed stream that is gone starts over from -1, so its successor at the same path wakes the subscription", () => {
    const s = newSubscription("s", { ...pull, streams: ["a"] }, [], tailsOf({ a: 50 }));
    const gone = streamGone(s, "a");
    expect(gone.links[0]!.ackedOffset).toBe(-1);
    expect(streamGone(gone, "a")).toBe(gone);
    expect(streamGone(s, "other")).toBe(s);
    expect(onAppend(gone, "a", tailsOf({ a: 5 }), "w1", 0).opened).toBe(true);
    expect(onAppend(s, "a", tailsOf({ a: 5 }), "w1", 0).opened).toBe(false);
  });

  test("removing an explicit stream keeps it while the pattern still takes it in", () => {
    const s = newSubscription("s", { ...webhook, streams: ["events/a", "manual/b"] }, ["events/a"], tailsOf({}));
    expect(unlinkExplicit(s, "manual/b").links.map((l) => l.path)).toEqual(["events/a"]);
    expect(unlinkExplicit(s, "events/a").links[0]).toMatchObject({ path: "events/a", explicit: false, glob: true });
  });
});
