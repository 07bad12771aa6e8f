import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";
import { READ_STEP_BYTES, type Store } from "../storage/store";
import { MAX_STEP_BYTES, nextStepBytes, readInSteps, STEP_BUDGET_MS } from "./stepped-read";

describe("nextStepBytes", () => {
  test("a step read at a fast pace lets the next one read what that pace reads in the budget", () => {
    expect(nextStepBytes(READ_STEP_BYTES / 2, STEP_BUDGET_MS / 3)).toBe((3 * READ_STEP_BYTES) / 2);
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

  /**
   * The real store, with each step's limit recorded, and a clock that a step moves on by
   * `msPer512KiB` for each 512 KiB it was asked for: a pace that does not depend on how loaded
   * the machine running the test is.
   */
  function paced(msPer512KiB: number): { store: Store; limits: number[]; clock: () => number } {
    const limits: number[] = [];
    let now = 0;
    const store = Object.create(h.store) as Store;
    store.readRange = (state, start, limitBytes, whole) => {
      limits.push(limitBytes);
      now += (limitBytes / READ_STEP_BYTES) * msPer512KiB;
      return h.store.readRange(state, start, limitBytes, whole);
    };
    return { store, limits, clock: () => now };
  }

  async function readAll(store: Store, clock: () => number): Promise<Uint8Array> {
    const state = (await h.store.get("steps-b/s"))!;
    const slice = await readInSteps(store, state, 0, COUNT * MESSAGE, false, undefined, clock);
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

  test("once the client has gone, no step after the one in progress is read", async () => {
    const { store, limits, clock } = paced(STEP_BUDGET_MS);
    const client = new AbortController();
    const state = (await h.store.get("steps-b/s"))!;
    const reading = readInSteps(store, state, 0, COUNT * MESSAGE, false, client.signal, clock);
    client.abort();
    const slice = await reading;
    expect(limits).toEqual([READ_STEP_BYTES]);
    expect(slice.end).toBe(READ_STEP_BYTES);
  });

  test("steps that read fast grow to what the pace reads in the budget, and the bytes are exact", async () => {
    const { store, limits, clock } = paced(STEP_BUDGET_MS / 2);
    expectExact(await readAll(store, clock));
    const KiB = 1024;
    // 512 KiB in half the budget: the next steps read 1 MiB each, and the last what is left.
    expect(limits).toEqual([512 * KiB, ...Array(7).fill(1024 * KiB), 512 * KiB]);
  });

  test("steps never grow past MAX_STEP_BYTES, however fast the pace", async () => {
    const { store, limits, clock } = paced(STEP_BUDGET_MS / 64);
    expectExact(await readAll(store, clock));
    // The pace says 32 MiB would fit in the budget; each step after the first still reads 1 MiB.
    expect(limits).toEqual([READ_STEP_BYTES, ...Array(7).fill(MAX_STEP_BYTES), READ_STEP_BYTES]);
  });

  test("steps that each take longer than the budget stay at READ_STEP_BYTES, and the bytes are exact", async () => {
    const { store, limits, clock } = paced(2 * STEP_BUDGET_MS);
    expectExact(await readAll(store, clock));
    expect(limits.length).toBe((COUNT * MESSAGE) / READ_STEP_BYTES);
    for (const limit of limits) expect(limit).toBe(READ_STEP_BYTES);
  });
});
