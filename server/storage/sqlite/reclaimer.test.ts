import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { Pins } from "./pins";
import { Reclaimer, type ReclaimTarget } from "./reclaimer";

test("a floor that rises while a step for the previous one runs gets a step of its own", async () => {
  // The step reads the floor when it runs; a rise committed after that, but before the step's
  // result comes back, must not be folded into a task that is about to end.
  let floor = 2;
  const seen: number[] = [];
  const pending: (() => void)[] = [];
  const target: ReclaimTarget<null> = {
    submit: <T>(run: (tx: null) => T) => new Promise<T>((resolve) => pending.push(() => resolve(run(null)))),
    floorStep: () => {
      seen.push(floor);
      return { freed: 0, more: false };
    },
    dropStep: () => ({ freed: 0, more: false }),
    blobStep: () => true,
    deleteAttrs: () => {},
  };
  const reclaimer = new Reclaimer(new Database(":memory:"), target, new Pins());
  const turn = () => new Promise((r) => setImmediate(r));

  reclaimer.floor(1, "b/s");
  await turn();
  expect(pending.length).toBe(1);
  pending.shift()!(); // the step runs at floor 2, and its answer is on its way
  floor = 8;
  reclaimer.floor(1, "b/s");
  for (let i = 0; i < 5 && pending.length === 0; i++) await turn();
  expect(pending.length).toBe(1);
  pending.shift()!();
  await reclaimer.settled();
  expect(seen).toEqual([2, 8]);
});
