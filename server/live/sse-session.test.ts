import { expect, test } from "bun:test";
import { streamState } from "../protocol/testing-state";
import type { StreamState } from "../protocol/state";
import type { Store, StreamChange } from "../storage/store";
import { LiveHub } from "./hub";
import { sseBody } from "./sse-session";

test("a subscriber whose stream's rows are gone before its delete is durable waits for the delete instead of spinning", async () => {
  const state = streamState({ id: 7, contentType: "application/octet-stream", tail: 10 });
  let current: StreamState | undefined = state;
  let notify: (changes: StreamChange[]) => void = () => undefined;
  let reads = 0;
  // The store of that moment: the durable state still has 10 bytes, the rows are already deleted.
  const store = {
    get: async () => current,
    readRange: async (_s: StreamState, start: number) => {
      if (++reads > 100) throw new Error("the session reads again and again");
      return { chunks: [], end: start };
    },
    onChange: (listener: (changes: StreamChange[]) => void) => (notify = listener),
  } as unknown as Store;
  const hub = new LiveHub(store, { maxReaders: 10, maxPerClient: 10 });
  const body = sseBody({
    reads: hub.reads("test/s", 7), hub, state, start: 0, limitBytes: 1 << 20, mode: "base64",
    cursor: null, heartbeatMs: 5_000, maxDurationMs: 10_000, signal: new AbortController().signal, client: "127.0.0.1",
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value);
  await Bun.sleep(20);
  expect(reads).toBe(1);
  // The delete becomes durable.
  current = undefined;
  notify([{ kind: "gone", id: 7, key: "test/s" }]);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  expect(text).not.toContain("event: data");
  expect(text).toContain("event: error");
});
