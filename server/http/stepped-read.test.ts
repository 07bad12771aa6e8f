import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { READ_STEP_BYTES, type Store } from "../storage/store";
import { MAX_STEP_BYTES, nextStepBytes, readInSteps, STEP_BUDGET_MS } from "./stepped-read";

describe("nextStepBytes", () => {
  test("a step read at a fast pace lets the next one read what that pace reads in the budget", () => {
    expect(nextStepBytes(READ_STEP_BYTES, STEP_BUDGET_MS / 3)).toBe(3 * READ_STEP_BYTES);
  });

  test("never below READ_STEP_BYTES, however slow the last step was, and never above MAX_STEP_BYTES", () => {
    expect(nextStepBytes(READ_STEP_BYTES, 50 * STEP_BUDGET_MS)).toBe(READ_STEP_BYTES);
    expect(nextStepBytes(0, 0)).toBe(READ_STEP_BYTES);
    expect(nextStepBytes(READ_STEP_BYTES, 0)).toBe(MAX_STEP_BYTES);
  });
});

describe("readInSteps", () => {
  let h: Harness;
  const MESSAGE = 64 * 1024;
  const COUNT = 128;
  beforeEach(async () => {
    h = harness();
    expect((await h.request("PUT", "/steps-b/s", { headers: { "content-type": "application/octet-stream" } })).status).toBe(201);
    for (let i = 0; i < COUNT; i++) {
      const r = await h.request("POST", "/steps-b/s", { headers: { "content-type": "application/octet-stream" }, body: new Uint8Array(MESSAGE).fill(i) });
      expect(r.status).toBe(204);
    }
  });
  afterEach(() => h.close());

  /** The real store, with each step's limit recorded, and `delayMs` of blocking work added per step. */
  function recording(delayMs: number): { store: Store; limits: number[] } {
    const limits: number[] = [];
    const store = Object.create(h.store) as Store;
    store.readRange = (state, start, limitBytes, whole) => {
      limits.push(limitBytes);
      if (delayMs > 0) Bun.sleepSync(delayMs);
      return h.store.readRange(state, start, limitBytes, whole);
    };
    return { store, limits };
  }

  async function readAll(store: Store): Promise<Uint8Array> {
    const state = (await h.store.get("steps-b/s"))!;
    const slice = await readInSteps(store, state, 0, COUNT * MESSAGE, false);
    expect(slice.end).toBe(COUNT * MESSAGE);
    return Buffer.concat(slice.chunks);
  }

  function expectExact(bytes: Uint8Array): void {
    expect(bytes.length).toBe(COUNT * MESSAGE);
    for (let i = 0; i < COUNT; i++) {
      expect(bytes[i * MESSAGE]).toBe(i);
      expect(bytes[(i + 1) * MESSAGE - 1]).toBe(i);
    }
  }

  test("steps of large messages that read fast grow past READ_STEP_BYTES, and the bytes are exact", async () => {
    const { store, limits } = recording(0);
    expectExact(await readAll(store));
    expect(limits[0]).toBe(READ_STEP_BYTES);
    expect(Math.max(...limits)).toBeGreaterThan(READ_STEP_BYTES);
    expect(limits.length).toBeLessThan((COUNT * MESSAGE) / READ_STEP_BYTES);
  });

  test("steps that each take longer than the budget stay at READ_STEP_BYTES, and the bytes are exact", async () => {
    const { store, limits } = recording(2 * STEP_BUDGET_MS);
    expectExact(await readAll(store));
    expect(limits.length).toBe((COUNT * MESSAGE) / READ_STEP_BYTES);
    for (const limit of limits) expect(limit).toBe(READ_STEP_BYTES);
  });
});
