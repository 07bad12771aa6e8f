// The race lab's lanes: writers run the prefix-count recipe (Ursula v0.9.0, Conditional Writes,
// §Prefix-count compare-and-set) against one fresh stream, each an ursa-client PrefixCountWriter
// (raceRunner.ts):
//   read to the tail, counting n → append with Stream-Seq = pad(n)
//   → on a 409 with Stream-Last-Seq: read on from where you stopped, count k, retry with n + k.
// The package makes the requests; this file folds each exchange into its writer's lane, and says
// from the lane what the writer will do next, so it is unit-tested without a server. Pitfall
// toggles bend exactly one rule each.
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { classify, type Outcome } from "../api/outcome";
import { padSeq } from "../api/streamSeq";

export const WRITER_NAMES = ["A", "B", "C", "D"] as const;

export interface RacePitfalls {
  /** Create the stream with a PUT that stores a Stream-Seq (rule 1 says: don't). */
  seedingPut: boolean;
  /** Send the count after your own commit instead of before it (not a compare-and-set). */
  afterCommit: boolean;
  /** Stop reading after one max_bytes-limited response, before Stream-Up-To-Date. */
  shortRead: boolean;
}

export interface RaceConfig {
  writers: number;
  commitsPerWriter: number;
  /** Events per commit, by writer; unequal sizes are what let the after-commit pitfall through. */
  eventsPerCommit: number[];
  pitfalls: RacePitfalls;
  /** 409s tolerated per commit before a writer gives up (contention safety net). */
  maxRetries: number;
  /**
   * Retries that resend the same Stream-Seq (the read-on found nothing new) before the writer
   * is declared stuck: what a seeding PUT does to every honest writer.
   */
  maxStalls: number;
  seedValue: number;
  shortReadBytes: number;
}

export const DEFAULT_RACE_CONFIG: RaceConfig = {
  writers: 2,
  commitsPerWriter: 2,
  eventsPerCommit: [1, 2, 3, 2],
  pitfalls: { seedingPut: false, afterCommit: false, shortRead: false },
  maxRetries: 50,
  maxStalls: 2,
  seedValue: 5,
  shortReadBytes: 1,
};

export type WriterPhase = "read" | "commit" | "read-on" | "done" | "stuck" | "failed";

/** Wall-clock span of an action (ms since the epoch), for the shared time axis. */
export interface Timed {
  startedAt: number;
  endedAt: number;
}

export interface ReadEntry extends Timed {
  kind: "read" | "read-on";
  /** Global order of this action across all lanes (1-based), so interleavings are visible. */
  at: number;
  from: string;
  to: string;
  /** Events counted by this read (n for a first read, k for a read-on). */
  events: number;
  /** The writer's count after it. */
  n: number;
  responses: number;
  upToDate: boolean;
  error?: string;
}

export interface CommitEntry extends Timed {
  kind: "commit";
  at: number;
  commit: number;
  attempt: number;
  seq: string;
  events: number;
  status: number;
  outcome: Outcome;
  lastSeq?: string;
  nextOffset?: string;
  code?: string;
}

export type LaneEntry = ReadEntry | CommitEntry;

export interface WriterState {
  name: string;
  phase: WriterPhase;
  n: number;
  readOffset: string;
  commit: number;
  attempt: number;
  accepted: number;
  conflicts: number;
  /** Consecutive 409s answered to the same Stream-Seq. */
  stalls: number;
  entries: LaneEntry[];
}

export interface RaceState {
  config: RaceConfig;
  path: string;
  writers: WriterState[];
  /** Round-robin cursor for "Step". */
  turn: number;
  /** Actions applied so far, across all writers. */
  clock: number;
}

/** What a writer does next, as its lane says: read to the tail, read on after a 409, or commit with this Stream-Seq. */
export type NextStep = { kind: "read" | "read-on" } | { kind: "commit"; seq: string };

export function initialRace(config: RaceConfig, path: string): RaceState {
  const writers = WRITER_NAMES.slice(0, config.writers).map<WriterState>((name) => ({
    name,
    phase: "read",
    n: 0,
    readOffset: "-1",
    commit: 0,
    attempt: 0,
    accepted: 0,
    conflicts: 0,
    stalls: 0,
    entries: [],
  }));
  return { config, path, writers, turn: 0, clock: 0 };
}

export function eventsFor(config: RaceConfig, writer: number): number {
  return Math.max(1, config.eventsPerCommit[writer] ?? 1);
}

/** The Stream-Seq a writer sends: its count before the commit, or (pitfall) after it. */
export function commitSeq(n: number, events: number, pitfalls: RacePitfalls): string {
  return padSeq(pitfalls.afterCommit ? n + events : n);
}

/**
 * Each event names its writer, commit, the Stream-Seq it was sent with and the count n the writer
 * had read, so the verdict can check the log alone: whether the writer saw every event before its
 * commit, and whether its Stream-Seq says so.
 */
export function commitEvents(writer: string, commit: number, seq: string, events: number, n: number): unknown[] {
  return Array.from({ length: events }, (_, e) => ({ w: writer, c: commit, e, of: events, seq, n }));
}

export function nextAction(state: RaceState, w: number): NextStep | null {
  const wr = state.writers[w];
  if (!wr) return null;
  switch (wr.phase) {
    case "read":
    case "read-on":
      return { kind: wr.phase };
    case "commit":
      return { kind: "commit", seq: commitSeq(wr.n, eventsFor(state.config, w), state.config.pitfalls) };
    default:
      return null;
  }
}

/** Applies one exchange to one writer; a new entry advances the global clock. */
function withWriter(state: RaceState, w: number, fn: (wr: WriterState, at: number) => WriterState): RaceState {
  const at = state.clock + 1;
  return { ...state, clock: at, writers: state.writers.map((wr, i) => (i === w ? fn(wr, at) : wr)) };
}

function messagesIn(ex: Exchange): number {
  const body: unknown = JSON.parse(ex.response?.bodyText || "[]");
  return Array.isArray(body) ? body.length : 0;
}

/**
 * One GET of a writer's read. `continues`: the read goes on from the writer's last GET (it was
 * not up to date), so it extends the same entry; otherwise it starts a read, or a read-on after a 409.
 */
export function foldRead(state: RaceState, w: number, ex: Exchange, continues: boolean): RaceState {
  const status = ex.response?.status;
  const error = status === 200 ? undefined : (ex.networkError ?? `${status} ${ex.errorCode ?? ""}`.trim());
  const events = error ? 0 : messagesIn(ex);
  const to = getHeader(ex.response?.headers, "stream-next-offset");
  const upToDate = getHeader(ex.response?.headers, "stream-up-to-date") === "true";
  const endedAt = ex.startedAt + ex.durationMs;
  const open = state.writers[w]?.entries.at(-1);
  if (continues && open && open.kind !== "commit") {
    const writers = state.writers.map((wr, i) => {
      if (i !== w) return wr;
      const entry: ReadEntry = { ...open, to: to ?? open.to, events: open.events + events, n: open.n + events, responses: open.responses + 1, upToDate, endedAt, error };
      return { ...wr, n: entry.n, readOffset: entry.to, phase: error ? ("failed" as const) : wr.phase, entries: [...wr.entries.slice(0, -1), entry] };
    });
    return { ...state, writers };
  }
  return withWriter(state, w, (wr, at) => {
    const n = wr.n + events;
    const entry: ReadEntry = { kind: wr.phase === "read-on" ? "read-on" : "read", at, startedAt: ex.startedAt, endedAt, from: wr.readOffset, to: to ?? wr.readOffset, events, n, responses: 1, upToDate, error };
    if (error) return { ...wr, phase: "failed", entries: [...wr.entries, entry] };
    return { ...wr, n, readOffset: entry.to, phase: "commit", entries: [...wr.entries, entry] };
  });
}

/** One POST of a writer's commit, and what its answer means for the writer. */
export function foldCommit(state: RaceState, w: number, ex: Exchange): RaceState {
  const status = ex.response?.status ?? 0;
  const outcome = classify(ex);
  const seq = getHeader(ex.request.headers, "stream-seq") ?? "";
  const events = (JSON.parse(ex.request.body ?? "[]") as unknown[]).length;
  const lastSeq = getHeader(ex.response?.headers, "stream-last-seq");
  const nextOffset = getHeader(ex.response?.headers, "stream-next-offset");
  return withWriter(state, w, (wr, at) => {
    const entry: CommitEntry = {
      kind: "commit",
      at,
      startedAt: ex.startedAt,
      endedAt: ex.startedAt + ex.durationMs,
      commit: wr.commit,
      attempt: wr.attempt,
      seq,
      events,
      status,
      outcome,
      lastSeq,
      nextOffset,
      code: ex.errorCode,
    };
    const entries = [...wr.entries, entry];
    if (status >= 200 && status < 300) {
      const commit = wr.commit + 1;
      // The writer's own events are counted by its next read, like anyone else's.
      return { ...wr, entries, commit, attempt: 0, stalls: 0, accepted: wr.accepted + 1, phase: commit >= state.config.commitsPerWriter ? "done" : "read" };
    }
    // Only a 409 that carries Stream-Last-Seq means "another writer committed first" (Conditional Writes).
    if (status === 409 && lastSeq !== undefined) {
      const attempt = wr.attempt + 1;
      const prev = [...wr.entries].reverse().find((e): e is CommitEntry => e.kind === "commit");
      const stalls = prev && prev.commit === wr.commit && prev.seq === seq ? wr.stalls + 1 : 0;
      const stuck = attempt > state.config.maxRetries || stalls >= state.config.maxStalls;
      return { ...wr, entries, attempt, stalls, conflicts: wr.conflicts + 1, phase: stuck ? "stuck" : "read-on" };
    }
    return { ...wr, entries, phase: "failed" };
  });
}

/** A writer whose call ended without its lane saying why (an answer the package could not read). */
export function failWriter(state: RaceState, w: number): RaceState {
  return { ...state, writers: state.writers.map((wr, i) => (i === w && (wr.phase === "read" || wr.phase === "read-on" || wr.phase === "commit") ? { ...wr, phase: "failed" as const } : wr)) };
}

export function isFinished(state: RaceState): boolean {
  return state.writers.every((w) => w.phase === "done" || w.phase === "stuck" || w.phase === "failed");
}

/** Round-robin over writers that still have work, starting at the turn cursor. */
export function scheduleNext(state: RaceState): number | null {
  const count = state.writers.length;
  for (let i = 0; i < count; i++) {
    const w = (state.turn + i) % count;
    if (nextAction(state, w)) return w;
  }
  return null;
}
