import { describe, expect, test } from "bun:test";
import { BodyPacer, TOO_SLOW } from "./body-pace";

/** A pacer on a clock the test moves; its check still runs on a real 250 ms timer, so a loaded machine stretches these tests. */
function pacer() {
  const clock = { now: 0 };
  const calls: string[] = [];
  const p = new BodyPacer({ minBytesPerSecond: 100, windowMs: 1000 }, { lift: () => calls.push("lift"), restore: () => calls.push("restore") }, () => clock.now);
  return { p, clock, calls };
}
const req = () => new Request("http://ursa.test/b/s", { method: "POST", body: "x" });
const tick = () => new Promise((r) => setTimeout(r, 300));

describe("BodyPacer", () => {
  test("a whole-body read that has not finished by window + length / rate is answered TOO_SLOW, and the idle timer is lifted and set again", async () => {
    const { p, clock, calls } = pacer();
    const r = req();
    const read = p.read(r, 200, () => new Promise<string>(() => undefined));
    clock.now = 2999; // 1 s window + 200 bytes at 100 B/s = 3 s
    await tick();
    expect(p.inProgress).toBe(1);
    clock.now = 3001;
    expect(await read).toBe(TOO_SLOW);
    expect(calls).toEqual(["lift", "restore"]);
    expect(p.arrivedWhole(r)).toBe(false);
  }, 20_000);

  test("a body read before the pacer's next tick leaves Bun's idle timer alone; one still arriving at a tick has it lifted, and set again once read", async () => {
    const { p, calls } = pacer();
    expect(await p.read(req(), 1, async () => "quick")).toBe("quick");
    expect(calls).toEqual([]);
    let finish: (v: string) => void = () => undefined;
    const slow = p.read(req(), 1, () => new Promise<string>((resolve) => (finish = resolve)));
    await tick();
    expect(calls).toEqual(["lift"]);
    finish("late");
    expect(await slow).toBe("late");
    expect(calls).toEqual(["lift", "restore"]);
  }, 20_000);

  test("a chunk reader that keeps the pace in every window is left alone; one that stalls after a burst is told to stop, and its answer is TOO_SLOW", async () => {
    const { p, clock } = pacer();
    const steady = req();
    const read = p.read(steady, null, async (body) => {
      body.inChunks(() => undefined);
      for (let i = 0; i < 3; i++) {
        body.count(150);
        clock.now += 1000;
        await tick();
      }
      return "whole";
    });
    expect(await read).toBe("whole");
    expect(p.arrivedWhole(steady)).toBe(true);

    clock.now = 0;
    // It returns only once told to stop, as a chunk reader's cancelled read does.
    const stalled = p.read(req(), 10_000, async (body) => {
      const stopped = new Promise<void>((resolve) => body.inChunks(resolve));
      // A burst in the first window earns nothing for the next.
      body.count(5000);
      await stopped;
      return "partial";
    });
    clock.now = 1001;
    await tick();
    expect(p.inProgress).toBe(1);
    clock.now = 2002;
    await tick();
    expect(await stalled).toBe(TOO_SLOW);
    expect(p.inProgress).toBe(0);
  }, 20_000);
});
