import { describe, expect, test } from "bun:test";
import { padSeq } from "../api/streamSeq";
import { DEFAULT_RACE_CONFIG, initialRace, type CommitEntry, type ReadEntry, type RaceState } from "./raceLab";
import { layoutSwimlane, splitPadding } from "./swimlane";

const read = (at: number, startedAt: number, endedAt: number, n: number): ReadEntry => ({ kind: "read", at, startedAt, endedAt, from: "-1", to: "x", events: n, n, responses: 1, upToDate: true });
const commit = (at: number, startedAt: number, endedAt: number, seq: number, status: number, lastSeq?: number): CommitEntry => ({
  kind: "commit",
  at,
  startedAt,
  endedAt,
  commit: 0,
  attempt: 0,
  seq: padSeq(seq),
  events: 1,
  status,
  outcome: status === 409 ? "409-seq" : "accepted",
  lastSeq: lastSeq === undefined ? undefined : padSeq(lastSeq),
});

function race(lanes: (ReadEntry | CommitEntry)[][]): RaceState {
  const st = initialRace({ ...DEFAULT_RACE_CONFIG, writers: lanes.length }, "/lab/s");
  return { ...st, writers: st.writers.map((w, i) => ({ ...w, entries: lanes[i]! })) };
}

describe("swimlane layout", () => {
  test("rows in the order the server answered, on one time axis from the first action", () => {
    const st = race([
      [read(1, 1000, 1004, 0), commit(3, 1010, 1012, 0, 204)],
      [read(2, 1001, 1006, 0), commit(4, 1011, 1015, 0, 409, 0)],
    ]);
    const l = layoutSwimlane(st);
    expect(l.lanes).toEqual(["A", "B"]);
    expect(l.rows.map((r) => [r.at, r.lane, r.t, r.dt])).toEqual([
      [1, 0, 0, 4],
      [2, 1, 1, 5],
      [3, 0, 10, 2],
      [4, 1, 11, 4],
    ]);
    expect(l.spanMs).toBe(15);
    expect(l.columns).toBe("5.5rem repeat(2, minmax(0, 1fr))");
  });
  test("times are whole milliseconds", () => {
    const l = layoutSwimlane(race([[read(1, 1000, 1004.4, 0), commit(2, 1010.2, 1012.75, 0, 204)]]));
    expect(l.rows.map((r) => [r.t, r.dt])).toEqual([
      [0, 4],
      [10, 3],
    ]);
  });
  test("a lost commit points at the accepted commit that stored its Stream-Last-Seq", () => {
    const st = race([
      [read(1, 0, 1, 0), commit(3, 2, 3, 0, 204), read(6, 6, 7, 2), commit(7, 8, 9, 2, 409, 1)],
      [read(2, 0, 1, 0), commit(4, 2, 4, 0, 409, 0), read(5, 4, 5, 1), commit(6, 5, 6, 1, 204)],
    ]);
    const lost = layoutSwimlane(st).rows.filter((r) => r.lostTo);
    expect(lost.map((r) => [r.at, r.lostTo])).toEqual([
      [4, { lane: 0, at: 3 }],
      [7, { lane: 1, at: 6 }],
    ]);
  });
  test("a value nobody committed came from the seeding PUT", () => {
    const st = race([[read(1, 0, 1, 0), commit(2, 1, 2, 0, 409, 5)]]);
    expect(layoutSwimlane(st, padSeq(5)).rows[1]!.lostTo).toBe("seed");
    expect(layoutSwimlane(st).rows[1]!.lostTo).toBeUndefined();
  });
  test("four writers get four equal lanes", () => {
    expect(layoutSwimlane(race([[], [], [], []])).columns).toBe("5.5rem repeat(4, minmax(0, 1fr))");
  });
  test("padding and digits", () => {
    expect(splitPadding(padSeq(42))).toEqual(["000000000000000000", "42"]);
    expect(splitPadding(padSeq(0))).toEqual(["0000000000000000000", "0"]);
    expect(splitPadding("abc")).toEqual(["", "abc"]);
  });
});
