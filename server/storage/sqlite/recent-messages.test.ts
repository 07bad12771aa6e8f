import { describe, expect, test } from "bun:test";
import { firstEndingAfter, RecentMessages } from "./recent-messages";

const entry = (id: number, start: number, size: number, streamId = 1) => ({ id, streamId, start, data: new Uint8Array(size) });

describe("recent messages", () => {
  test("over budget, the oldest messages go first, but never one the index cannot find yet", () => {
    const recent = new RecentMessages(25);
    for (let i = 1; i <= 4; i++) recent.add(entry(i, (i - 1) * 10, 10));
    recent.trim(2);
    // 40 bytes held, budget 25: ids 1 and 2 may go; 3 and 4 are not indexed yet and stay.
    const held = recent.held(1)!;
    expect(held.entries.slice(held.head).map((e) => e.id)).toEqual([3, 4]);
    // Under budget again: nothing more goes, indexed or not.
    recent.trim(4);
    expect(held.entries.slice(held.head).map((e) => e.id)).toEqual([3, 4]);
    recent.add(entry(5, 40, 10));
    recent.trim(5);
    expect(held.entries.slice(held.head).map((e) => e.id)).toEqual([4, 5]);
  });

  test("a dropped stream's messages are unreadable and their bytes released at once", () => {
    const recent = new RecentMessages(100);
    recent.add(entry(1, 0, 10));
    const dropped = entry(2, 0, 60, 2);
    recent.add(dropped);
    recent.drop(2);
    expect(recent.held(2)).toBeUndefined();
    expect(dropped.data.length).toBe(0);
    // Its 60 bytes no longer count: another 60 still fit beside stream 1's 10.
    recent.add(entry(3, 10, 60));
    recent.trim(3);
    expect(recent.held(1)!.entries.slice(recent.held(1)!.head).map((e) => e.id)).toEqual([1, 3]);
  });

  test("past the message count the oldest go too, however few bytes they hold", () => {
    const recent = new RecentMessages(1 << 20, 3);
    for (let i = 1; i <= 5; i++) recent.add(entry(i, i - 1, 1));
    recent.trim(5);
    const held = recent.held(1)!;
    expect(held.entries.slice(held.head).map((e) => e.id)).toEqual([3, 4, 5]);
  });

  test("firstEndingAfter finds the message holding an offset, from the first one held", () => {
    const held = { entries: [entry(1, 0, 5), entry(2, 5, 5), entry(3, 10, 5)], head: 1 };
    expect([0, 5, 9, 10, 14, 15].map((o) => firstEndingAfter(held, o))).toEqual([1, 1, 1, 2, 2, 3]);
  });
});
