import { expect, test } from "bun:test";
import { nextReadTurn } from "./read-turns";

test("readers waiting for a turn take one step per pass of the event loop, and other work runs between any two", async () => {
  const events: string[] = [];
  let passes = 0;
  let counting = true;
  const count = () => {
    if (!counting) return;
    passes++;
    events.push(`pass ${passes}`);
    setImmediate(count);
  };
  setImmediate(count);
  const reader = async (name: string) => {
    for (let step = 0; step < 3; step++) {
      await nextReadTurn();
      events.push(`${name}${step}`);
    }
  };
  await Promise.all([reader("a"), reader("b"), reader("c")]);
  counting = false;
  const steps = events.filter((e) => !e.startsWith("pass"));
  expect(steps).toEqual(["a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2", "c2"]);
  // Every two steps are separated by at least one pass of the other work.
  for (let i = 1; i < events.length; i++) {
    if (!events[i]!.startsWith("pass")) expect(events[i - 1]!.startsWith("pass")).toBe(true);
  }
});
