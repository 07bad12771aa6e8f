import { afterEach, beforeEach, expect, test } from "bun:test";
import { appendReq, created } from "../storage/contract/helpers";
import { harness, type Harness } from "../testing/app-harness";
import { countReads, dataEvents, parkReaders } from "../testing/live-readers";

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

test("readers woken by successive appends get every event in order, each wake's state read once for all of them", async () => {
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
  expect(counts.states).toBe(messages.length);
  expect(counts.ranges).toBe(0);
  for (const r of readers.sse) r.stop();
});
