import { expect, test } from "bun:test";
import { streamState } from "../protocol/testing-state";
import type { Store, StreamChange } from "../storage/store";
import { LiveHub } from "./hub";

function hubWithStore() {
  let notify: (changes: StreamChange[]) => void = () => undefined;
  const store = { onChange: (listener: (changes: StreamChange[]) => void) => (notify = listener) } as unknown as Store;
  return { hub: new LiveHub(store, 10), commit: (changes: StreamChange[]) => notify(changes) };
}

const appended = (tail: number): StreamChange => ({
  kind: "appended",
  state: streamState({ id: 3, contentType: "application/octet-stream", tail }),
  start: 0,
  messages: [new Uint8Array(tail).fill(7)],
});

test("a woken reader gets the newest append from the commit itself", async () => {
  const { hub, commit } = hubWithStore();
  const woke = hub.wait(3, 5_000);
  commit([appended(4)]);
  expect(await woke).toBe("changed");
  expect(hub.payloadAt(3, 0, 4, 1 << 20, "base64")).toEqual({ text: "BwcHBw==", end: 4 });
});

test("once its last reader leaves without reading, the newest append is let go of", async () => {
  const { hub, commit } = hubWithStore();
  const first = hub.wait(3, 5_000);
  commit([appended(4)]);
  await first;
  const abort = new AbortController();
  const parked = hub.wait(3, 5_000, abort.signal);
  abort.abort();
  expect(await parked).toBe("aborted");
  expect(hub.payloadAt(3, 0, 4, 1 << 20, "base64")).toBeNull();
  expect(hub.active).toBe(0);
});
