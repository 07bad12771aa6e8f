// Search is paced like a catch-up: it takes read turns, yields whenever matching has used a
// step's budget, and stops when the client has gone.

import { afterEach, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { searchMessages } from "./message-search";

let h: Harness;
afterEach(() => h.close());

async function streamOf(messages: number) {
  h = harness();
  expect((await h.request("PUT", "/srch-p/s", { headers: { "Content-Type": "application/json" } })).status).toBe(201);
  const body = JSON.stringify(Array.from({ length: messages }, (_, i) => ({ a: { b: i } })));
  expect((await h.request("POST", "/srch-p/s", { headers: { "Content-Type": "application/json" }, body })).status).toBe(204);
  return (await h.store.get("srch-p/s"))!;
}

const query = { from: 0, text: "", matchCase: false, field: "a.b", value: "", limit: 1000 };

test("a search whose matching outlasts a step's budget lets the event loop run between messages", async () => {
  const state = await streamOf(200);
  // Every look at the clock finds more than a step's budget gone: each message ends its step.
  let now = 0;
  const clock = () => (now += 2);
  let passes = 0;
  let searching = true;
  const count = () => {
    passes++;
    if (searching) setImmediate(count);
  };
  setImmediate(count);
  const page = await searchMessages(h.store, state, true, query, new AbortController().signal, clock);
  searching = false;
  expect(page.matches).toHaveLength(200);
  expect(page.done).toBe(true);
  // The other side of the loop ran about once per message, not once for the whole search.
  expect(passes).toBeGreaterThan(100);
});

test("a search stops where it is once the client has gone, and says it is not done", async () => {
  const state = await streamOf(200);
  const client = new AbortController();
  let looks = 0;
  const clock = () => {
    if (++looks === 50) client.abort();
    return looks * 2;
  };
  const page = await searchMessages(h.store, state, true, query, client.signal, clock);
  expect(page.done).toBe(false);
  expect(page.matches.length).toBeGreaterThan(0);
  expect(page.matches.length).toBeLessThan(200);
  expect(page.scanned_to).toBe(page.matches.at(-1)!.offset + page.matches.at(-1)!.size);
  // A search asked for by a client already gone reads nothing.
  const gone = await searchMessages(h.store, state, true, query, client.signal);
  expect([gone.matches.length, gone.scanned_to]).toEqual([0, 0]);
});
