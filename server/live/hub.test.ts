import { expect, test } from "bun:test";
import { streamState } from "../protocol/testing-state";
import type { Store, StreamChange } from "../storage/store";
import { LiveHub, type ReaderPlace, type Wake } from "./hub";

function hubWithStore() {
  let notify: (changes: StreamChange[]) => void = () => undefined;
  const store = { onChange: (listener: (changes: StreamChange[]) => void) => (notify = listener) } as unknown as Store;
  return { hub: new LiveHub(store, { maxReaders: 10, maxPerClient: 10 }), commit: (changes: StreamChange[]) => notify(changes) };
}

const appended = (tail: number, start = 0): StreamChange => ({
  kind: "appended",
  state: streamState({ id: 3, contentType: "application/octet-stream", tail }),
  start,
  messages: [new Uint8Array(tail - start).fill(7)],
});

/** An append of stream `id`. */
const appendedTo = (id: number): StreamChange => ({
  kind: "appended",
  state: streamState({ id, contentType: "application/octet-stream", tail: 4 }),
  start: 0,
  messages: [new Uint8Array(4)],
});

/** One long-poll wait from now on, as a request that read nothing yet would make (hub.poll). */
function waitOnce(hub: LiveHub, id: number, timeoutMs: number, signal?: AbortSignal, client = "", place?: ReaderPlace): Promise<Wake> {
  const subscription = hub.poll(id, hub.mark(), signal, client, place);
  return subscription.next(timeoutMs).finally(() => subscription.close());
}

test("a woken subscriber gets the newest append from the commit itself", async () => {
  const { hub, commit } = hubWithStore();
  const subscription = hub.subscribe(3);
  const woke = subscription.next(5_000);
  commit([appended(4)]);
  expect(await woke).toBe("changed");
  expect(hub.payloadAt(3, 0, 4, 1 << 20, "base64")).toEqual({ text: "BwcHBw==", end: 4 });
  subscription.close();
});

test("once its last subscriber leaves, the newest append is let go of", async () => {
  const { hub, commit } = hubWithStore();
  const first = hub.subscribe(3);
  const woke = first.next(5_000);
  commit([appended(4)]);
  await woke;
  const abort = new AbortController();
  const second = hub.subscribe(3, abort.signal);
  first.close();
  expect(hub.payloadAt(3, 0, 4, 1 << 20, "base64")).not.toBeNull();
  const parked = second.next(5_000);
  abort.abort();
  expect(await parked).toBe("aborted");
  second.close();
  expect(hub.payloadAt(3, 0, 4, 1 << 20, "base64")).toBeNull();
  expect(hub.active).toBe(0);
});

test("a commit while the subscriber is busy wakes its next wait at once, and only that one", async () => {
  const { hub, commit } = hubWithStore();
  const subscription = hub.subscribe(3);
  commit([appended(4)]);
  commit([appended(8, 4)]);
  expect(await subscription.next(5_000)).toBe("changed");
  expect(await subscription.next(20)).toBe("timeout");
  subscription.close();
});

test("deletion and shutdown are not lost behind a change, and keep waking", async () => {
  const { hub, commit } = hubWithStore();
  const subscription = hub.subscribe(3);
  commit([appended(4)]);
  commit([{ kind: "gone", id: 3, key: "b/s" }]);
  commit([appended(4)]);
  expect(await subscription.next(5_000)).toBe("gone");
  expect(await subscription.next(5_000)).toBe("gone");
  subscription.close();

  const other = hub.subscribe(3);
  hub.shutdown();
  expect(await other.next(5_000)).toBe("shutdown");
  other.close();
  expect(await waitOnce(hub, 3, 5_000)).toBe("shutdown");
});

test("the timeout counts from each wait, though the timer is not re-armed per event", async () => {
  const { hub, commit } = hubWithStore();
  const subscription = hub.subscribe(3);
  const first = subscription.next(150);
  await Bun.sleep(100);
  commit([appended(4)]);
  expect(await first).toBe("changed");
  // The timer armed by the first wait fires 150 ms after it, 50 ms into this one: too early.
  const began = performance.now();
  expect(await subscription.next(150)).toBe("timeout");
  expect(performance.now() - began).toBeGreaterThanOrEqual(140);
  // A shorter wait than the armed timer's gets its own.
  const shortBegan = performance.now();
  expect(await subscription.next(30)).toBe("timeout");
  expect(performance.now() - shortBegan).toBeLessThan(120);
  subscription.close();
});

test("a subscriber that closes stops counting, and a one-shot wait leaves nothing behind", async () => {
  const { hub, commit } = hubWithStore();
  const subscription = hub.subscribe(3);
  expect(hub.active).toBe(1);
  const waited = waitOnce(hub, 3, 5_000);
  expect(hub.active).toBe(2);
  commit([appended(4)]);
  expect(await waited).toBe("changed");
  expect(hub.active).toBe(1);
  subscription.close();
  subscription.close();
  expect(hub.active).toBe(0);
  const aborted = new AbortController();
  aborted.abort();
  expect(await waitOnce(hub, 3, 5_000, aborted.signal)).toBe("aborted");
  expect(hub.active).toBe(0);
});

test("closing a subscription ends a wait still in progress", async () => {
  const { hub } = hubWithStore();
  const subscription = hub.subscribe(3);
  const parked = subscription.next(5_000);
  subscription.close();
  expect(await parked).toBe("aborted");
  expect(hub.active).toBe(0);
});

test("live readers are capped server-wide and per client address, and counted by kind until they leave", async () => {
  let notify: (changes: StreamChange[]) => void = () => undefined;
  const store = { onChange: (listener: (changes: StreamChange[]) => void) => (notify = listener) } as unknown as Store;
  const hub = new LiveHub(store, { maxReaders: 3, maxPerClient: 2 });
  const a1 = hub.subscribe(3, undefined, "10.0.0.1");
  expect(hub.refusal("10.0.0.1")).toBeNull();
  const polled = waitOnce(hub, 3, 5_000, undefined, "10.0.0.1");
  expect([hub.activeOf("sse"), hub.activeOf("long-poll")]).toEqual([1, 1]);
  expect(hub.refusal("10.0.0.1")).toBe("client");
  expect(hub.refusal("10.0.0.2")).toBeNull();
  const b1 = hub.subscribe(3, undefined, "10.0.0.2");
  expect(hub.refusal("10.0.0.2")).toBe("server");

  notify([appended(4)]);
  expect(await polled).toBe("changed");
  expect([hub.active, hub.activeOf("long-poll")]).toEqual([2, 0]);
  expect(hub.refusal("10.0.0.1")).toBeNull();
  a1.close();
  b1.close();
  a1.close();
  expect([hub.active, hub.activeOf("sse")]).toEqual([0, 0]);
});

test("each reader's place: kind, client, bucket, the offset it was sent up to, and when it began; counts per stream and bucket", async () => {
  const { hub, commit } = hubWithStore();
  const sse = hub.subscribe(3, undefined, "10.0.0.1", { bucket: "b1", offset: 0, startedAtMs: 1_000 });
  const poll = waitOnce(hub, 3, 5_000, undefined, "10.0.0.2", { bucket: "b1", offset: 4, startedAtMs: 2_000 });
  const other = hub.subscribe(9, undefined, "10.0.0.3", { bucket: "b2", offset: 7, startedAtMs: 3_000 });
  expect([hub.readersOf(3), hub.readersOf(9), hub.readersOf(4)]).toEqual([2, 1, 0]);
  expect([hub.readersIn("b1"), hub.readersIn("b2"), hub.readersIn("b3")]).toEqual([2, 1, 0]);
  expect(new Map(hub.bucketsWithReaders())).toEqual(new Map([["b1", 2], ["b2", 1]]));
  expect(hub.readers(3).sort((a, b) => a.startedAtMs - b.startedAtMs)).toEqual([
    { kind: "sse", client: "10.0.0.1", bucket: "b1", offset: 0, startedAtMs: 1_000 },
    { kind: "long-poll", client: "10.0.0.2", bucket: "b1", offset: 4, startedAtMs: 2_000 },
  ]);
  sse.sentTo(4);
  expect(hub.readers(3).find((r) => r.kind === "sse")!.offset).toBe(4);

  commit([appended(8, 4)]);
  expect(await poll).toBe("changed");
  sse.close();
  expect([hub.readersOf(3), hub.readersIn("b1"), hub.readers(3)]).toEqual([0, 0, []]);
  expect(hub.bucketsWithReaders()).toEqual([["b2", 1]]);
  other.close();
  expect([hub.active, hub.bucketsWithReaders()]).toEqual([0, []]);
});

test("a long-poll misses no change made while its state was read: after its mark and before its poll wakes the first wait at once, during a wait's read the next one; before the mark, nothing", async () => {
  const { hub, commit } = hubWithStore();
  commit([appended(4)]);
  const since = hub.mark();
  // Its state is read here; meanwhile stream 3 changes, and another stream.
  commit([appended(4)]);
  commit([appendedTo(5)]);
  const late = hub.poll(3, since);
  expect(await late.next(5_000)).toBe("changed");
  // It reads the state again; a change now is kept for its next wait.
  commit([appended(4)]);
  expect(await late.next(5_000)).toBe("changed");
  late.close();
  const unchanged = hub.poll(3, hub.mark());
  expect(await unchanged.next(30)).toBe("timeout");
  unchanged.close();
  // Stream 5's change is not stream 3's.
  const other = hub.poll(9, since);
  expect(await other.next(30)).toBe("timeout");
  other.close();
});

test("a long-poll whose mark is older than the changes the hub remembers (4,096 streams) wakes at once rather than miss one", async () => {
  const { hub, commit } = hubWithStore();
  const since = hub.mark();
  for (let id = 100; id < 100 + 4097; id++) commit([appendedTo(id)]);
  const poll = hub.poll(3, since);
  expect(await poll.next(5_000)).toBe("changed");
  poll.close();
});
