import { afterEach, beforeEach, expect, test } from "bun:test";
import type { StreamState } from "../protocol/state";
import { streamState } from "../protocol/testing-state";
import { appendReq, created } from "../storage/contract/helpers";
import type { Store } from "../storage/store";
import { harness, type Harness } from "../testing/app-harness";
import { countReads, dataEvents, parkReaders } from "../testing/live-readers";
import { SharedReads } from "./shared-reads";

const SSE_READERS = 200;
const LONG_POLLS = 20;

let h: Harness;
beforeEach(() => {
  h = harness({ maxLiveReaders: 1000 });
});
afterEach(() => h.close());

test("one append wakes 200 SSE readers and 20 long-polls with one state read and one byte read on SQLite", async () => {
  const state = await created(h.store, "fan/s");
  const readers = await parkReaders(h.hub, h.store, "fan/s", state, SSE_READERS, LONG_POLLS);
  const counts = countReads(h.store);
  await h.store.append("fan/s", appendReq(["hello"]));
  expect(await Promise.all(readers.polls)).toEqual(Array(LONG_POLLS).fill("hello"));
  await Promise.all(readers.sse.map((r) => r.until((text) => dataEvents(text).length > 0)));
  // Whatever reads the readers make after sending have been made.
  await Bun.sleep(50);
  for (const r of readers.sse) expect(dataEvents(r.text())).toEqual(["hello"]);
  // The SSE readers take the bytes from the commit (hub.payloadAt); the long-polls share one read.
  expect(counts).toEqual({ states: 1, ranges: 1 });
  for (const r of readers.sse) r.stop();
});

test("readers waiting at the tail are sent successive appends in order from the commits themselves, with no read", async () => {
  const state = await created(h.store, "fan/s");
  const readers = await parkReaders(h.hub, h.store, "fan/s", state, SSE_READERS, 0);
  const counts = countReads(h.store);
  const messages = ["m0", "m1", "m2", "m3", "m4"];
  for (const m of messages) {
    await h.store.append("fan/s", appendReq([m]));
    await Promise.all(readers.sse.map((r) => r.until((text) => dataEvents(text).join("").endsWith(m))));
  }
  await Bun.sleep(50);
  for (const r of readers.sse) expect(dataEvents(r.text()).join("")).toBe(messages.join(""));
  // Each append was pushed to the readers as it was told (hub.ts Push): none woke to read.
  expect(counts).toEqual({ states: 0, ranges: 0 });
  for (const r of readers.sse) r.stop();
});

test("a reader never takes a state read that started before its own last state was in; a change told drops what was shared, and nothing is held for long", async () => {
  const pending: ((state: StreamState) => void)[] = [];
  const store = { get: () => new Promise<StreamState>((resolve) => pending.push(resolve)) } as unknown as Store;
  const shared = new SharedReads(store);
  const older = streamState({ id: 1, tail: 2 });
  const newer = streamState({ id: 1, tail: 4 });
  const first = shared.reader("test/s", 1);
  const firstRead = first.state();
  // Made once its own plan read was in, which may have seen a commit the read in flight has not.
  const second = shared.reader("test/s", 1);
  const secondRead = second.state();
  expect(pending).toHaveLength(2);
  pending[0]!(older);
  pending[1]!(newer);
  expect(await firstRead).toBe(older);
  expect(await secondRead).toBe(newer);
  // The newer read started before the first reader's was in: it may have run before it.
  const again = first.state();
  expect(pending).toHaveLength(3);
  pending[2]!(newer);
  expect(await again).toBe(newer);
  // Started after each reader's last state was in, it serves both.
  expect(await second.state()).toBe(newer);
  expect(pending).toHaveLength(3);
  shared.changed(1);
  const afterChange = second.state();
  expect(pending).toHaveLength(4);
  pending[3]!(newer);
  expect(await afterChange).toBe(newer);
  // Let go of two turns after it is in, and the stream's entry with it.
  expect(shared.held).toBe(1);
  await new Promise((resolve) => setImmediate(() => setImmediate(() => setImmediate(resolve))));
  expect(shared.held).toBe(0);
});
