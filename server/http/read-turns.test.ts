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

test("a lone reader's turn is granted in the same pass; the next turn asked for in that pass waits for a later one", async () => {
  const order: string[] = [];
  // Wait for any turn granted earlier in this file to be over.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  setImmediate(() => order.push("pass"));
  const first = nextReadTurn().then(() => order.push("first"));
  const second = nextReadTurn().then(() => order.push("second"));
  await Promise.all([first, second]);
  expect(order).toEqual(["first", "pass", "second"]);
});
