// Live fan-out on PostgreSQL, against a real cluster: one read per stream per wake for every live
// reader of an instance, whether the commit was its own or another instance's (a NOTIFY), and a
// burst of notifications for one stream read once more at most, not once each.

import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { LiveHub } from "../../live/hub";
import { SharedReader } from "../../live/shared-reads";
import { appendReq, created } from "../contract/helpers";
import { clusterPerFile } from "../../testing/pg-cluster";
import { countReads, dataEvents, parkReaders } from "../../testing/live-readers";
import { PgStore } from "./pg-store";

const cluster = clusterPerFile({ beforeAll, afterAll });
const SSE_READERS = 200;
const LONG_POLLS = 20;

let databases = 0;
const opened: PgStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close().catch(() => undefined);
}, 60_000);

/** Two instances on one fresh database, each with its live readers' hub. */
async function instances(): Promise<{ store: PgStore; hub: LiveHub }[]> {
  const url = await cluster().createDatabase(`fanout_${++databases}`);
  const stores = [await PgStore.open({ url, poolSize: 4 }), await PgStore.open({ url, poolSize: 4 })];
  opened.push(...stores);
  return stores.map((store) => ({ store, hub: new LiveHub(store, { maxReaders: 1000, maxPerClient: 1000 }) }));
}

const allData = (text: string) => dataEvents(text).join("");

// The readers' instance, and the reads it serves for one append: on its own commit, the SSE
// readers are handed the bytes from the commit and the long-polls share one state read; on another
// instance's, one state read and one read of the bytes (which the notification does not carry)
// serve all of them. The store reads nothing to tell another instance's change.
for (const [whose, readerSide] of [
  ["an instance's own append", 0],
  ["another instance's append", 1],
] as const) {
  test(`${whose} reaches 200 SSE readers and 20 long-polls with one state read and one byte read in all`, async () => {
    const both = await instances();
    const writer = both[0]!;
    const side = both[readerSide]!;
    const state = await created(writer.store, "fan/s");
    const readers = await parkReaders(side.hub, side.store, "fan/s", state, SSE_READERS, LONG_POLLS);
    const counts = countReads(side.store);
    // Every live reader's ask for the state, its own read or a share of another's.
    const stateAsks = spyOn(SharedReader.prototype, "state");
    try {
      await writer.store.append("fan/s", appendReq(["hello"]));
      expect(await Promise.all(readers.polls)).toEqual(Array(LONG_POLLS).fill("hello"));
      await Promise.all(readers.sse.map((r) => r.until((text) => allData(text) === "hello")));
      await Bun.sleep(50);
      for (const r of readers.sse) expect(dataEvents(r.text())).toEqual(["hello"]);
      expect(counts).toEqual({ states: 1, ranges: 1 });
      // The SSE readers, waiting at the tail, were handed the append (live/hub.ts Push): the
      // long-polls asked, and on another instance's append the hub once for the SSE readers.
      expect(stateAsks).toHaveBeenCalledTimes(LONG_POLLS + readerSide);
    } finally {
      stateAsks.mockRestore();
    }
    for (const r of readers.sse) r.stop();
  }, 60_000);
}

test("a burst of notifications for one stream while its read is in flight costs one more read, and readers get every event in order", async () => {
  const [a, b] = await instances();
  const state = await created(a!.store, "fan/s");
  const readers = await parkReaders(b!.hub, b!.store, "fan/s", state, SSE_READERS, 0);
  // B's reads wait at a gate, so the burst arrives while the first one is in flight.
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let held = 0;
  let reads = 0;
  const get = b!.store.get.bind(b!.store);
  b!.store.get = async (key) => {
    reads++;
    held++;
    await gate;
    return get(key);
  };
  const messages = ["m0", "m1", "m2", "m3", "m4"];
  await a!.store.append("fan/s", appendReq([messages[0]!]));
  while (held === 0) await Bun.sleep(5);
  for (const m of messages.slice(1)) await a!.store.append("fan/s", appendReq([m]));
  // Each notification is delivered to B well within this.
  await Bun.sleep(300);
  expect(held).toBe(1);
  open();
  await Promise.all(readers.sse.map((r) => r.until((text) => allData(text) === messages.join(""))));
  await Bun.sleep(100);
  for (const r of readers.sse) expect(allData(r.text())).toBe(messages.join(""));
  // The readers' shared read in flight at the gate, and at most one more after it, shared too.
  expect(reads).toBeLessThanOrEqual(2);
  for (const r of readers.sse) r.stop();
}, 60_000);

test("another instance's appends to a stream no one reads here cost this instance no read", async () => {
  const [a, b] = await instances();
  await created(a!.store, "fan/quiet");
  let told = 0;
  b!.store.onChange((changes) => (told += changes.filter((c) => c.kind === "touched").length));
  const counts = countReads(b!.store);
  for (const m of ["m0", "m1", "m2"]) await a!.store.append("fan/quiet", appendReq([m]));
  while (told < 3) await Bun.sleep(5);
  await Bun.sleep(50);
  expect(counts).toEqual({ states: 0, ranges: 0 });
}, 60_000);
