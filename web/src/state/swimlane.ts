// The race lab drawn as a swimlane: one lane per writer, one row per action in the order the
// server answered them, on one time axis shared by every lane, so who committed first is read
// off the page. Pure layout, unit-tested; components/lab/Swimlane.tsx draws it.
import type { CommitEntry, LaneEntry, RaceState } from "./raceLab";

export interface SwimRow {
  at: number;
  lane: number;
  entry: LaneEntry;
  /** Start and end relative to the run's first action, in ms. */
  t: number;
  dt: number;
  /** For a Stream-Seq 409: the accepted commit that stored Stream-Last-Seq, or the seeding PUT. */
  lostTo?: { lane: number; at: number } | "seed";
}

export interface SwimLayout {
  lanes: string[];
  rows: SwimRow[];
  /** The time axis runs from 0 to this many ms. */
  spanMs: number;
  /** CSS grid columns: the time axis, then one equal lane per writer. */
  columns: string;
}

export const TIME_COLUMN = "5.5rem";

export function layoutSwimlane(state: RaceState, seeded: string | null = null): SwimLayout {
  const all = state.writers.flatMap((w, lane) => w.entries.map((entry) => ({ lane, entry })));
  const origin = all.length ? Math.min(...all.map((r) => r.entry.startedAt)) : 0;
  const rows: SwimRow[] = all
    .sort((a, b) => a.entry.at - b.entry.at)
    // Whole milliseconds: a request's duration is measured to a tenth of one.
    .map(({ lane, entry }) => ({ at: entry.at, lane, entry, t: Math.round(entry.startedAt - origin), dt: Math.max(0, Math.round(entry.endedAt - entry.startedAt)) }));
  const accepted = rows.filter((r): r is SwimRow & { entry: CommitEntry } => r.entry.kind === "commit" && r.entry.status >= 200 && r.entry.status < 300);
  for (const r of rows) {
    if (r.entry.kind !== "commit" || r.entry.lastSeq === undefined) continue;
    const stored = r.entry.lastSeq;
    const winner = [...accepted].reverse().find((w) => w.at < r.at && w.entry.seq === stored);
    if (winner) r.lostTo = { lane: winner.lane, at: winner.at };
    else if (seeded !== null && stored === seeded) r.lostTo = "seed";
  }
  const spanMs = rows.reduce((m, r) => Math.max(m, r.t + r.dt), 0);
  return { lanes: state.writers.map((w) => w.name), rows, spanMs, columns: `${TIME_COLUMN} repeat(${state.writers.length}, minmax(0, 1fr))` };
}

/** A zero-padded value split into its padding and its digits, so the digits can stand out: "0…042" → ["0…0", "42"]. */
export function splitPadding(value: string): [zeros: string, rest: string] {
  // The digits part keeps at least one digit: "0000" is ["000", "0"].
  const m = /^(0*)(\d+)$/.exec(value);
  return m ? [m[1]!, m[2]!] : ["", value];
}
