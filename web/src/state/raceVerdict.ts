// The verdict of a race: read the resulting log and check the invariant the recipe promises,
// "every commit's Stream-Seq equals the events before it". The log alone is enough because
// each event carries its writer, commit number, the Stream-Seq it was committed with and the
// count the writer had read. Two different failures are told apart: a commit whose writer had
// not read every event before it was validated against a stale log; a commit whose writer had,
// but whose Stream-Seq says otherwise (the count after its own commit, a seeded value), broke
// the recipe without being stale, like the first commit on an empty log under the after-commit
// pitfall. raceLesson turns the verdict into what every lab verdict says (labLesson.ts).

import type { LabLesson } from "./labLesson";
import type { RaceState } from "./raceLab";
import { padSeq } from "../api/streamSeq";

export interface CommitCheck {
  writer: string;
  commit: number;
  seq: string;
  /** Events in the log before this commit's first event. */
  before: number;
  /** Events the writer had read when it committed. */
  read: number;
  size: number;
  /** The writer had not read every event before its commit. */
  stale: boolean;
  ok: boolean;
  why?: string;
}

export interface Verdict {
  ok: boolean;
  events: number;
  commits: CommitCheck[];
  summary: string;
}

interface RaceEvent {
  w: string;
  c: number;
  e: number;
  of: number;
  seq: string;
  n?: number;
}

function isRaceEvent(v: unknown): v is RaceEvent {
  const o = v as RaceEvent;
  return !!o && typeof o.w === "string" && typeof o.c === "number" && typeof o.e === "number" && typeof o.seq === "string";
}

const evs = (n: number) => `${n} event${n === 1 ? "" : "s"}`;

function judge(first: RaceEvent, before: number, size: number): CommitCheck {
  const seqCount = /^\d+$/.test(first.seq) ? Number(first.seq) : NaN;
  const read = first.n ?? seqCount;
  const stale = read < before;
  const check: CommitCheck = { writer: first.w, commit: first.c, seq: first.seq, before, read, size, stale, ok: !stale && seqCount === before && size === first.of };
  if (size !== first.of) check.why = `commit split: ${size} of ${first.of} events together`;
  else if (stale) check.why = `validated against a stale log: the writer had read ${evs(read)}, the log holds ${evs(before)} before it — its read did not reach the tail`;
  else if (!check.ok)
    check.why =
      seqCount === before + size
        ? `it saw the whole log, but Stream-Seq ${seqCount} counts its own ${evs(size)} too (the count after the commit), ${before} came before`
        : `Stream-Seq says ${evs(seqCount)} came before, the log has ${before}`;
  return check;
}

export function checkLog(events: unknown[], stuck: string[] = []): Verdict {
  const commits: CommitCheck[] = [];
  let i = 0;
  while (i < events.length) {
    const first = events[i];
    if (!isRaceEvent(first)) {
      commits.push({ writer: "?", commit: -1, seq: "", before: i, read: i, size: 1, stale: false, ok: false, why: "not an event of this lab" });
      i++;
      continue;
    }
    let size = 0;
    while (i + size < events.length) {
      const ev = events[i + size];
      if (!isRaceEvent(ev) || ev.w !== first.w || ev.c !== first.c || ev.e !== size) break;
      size++;
    }
    commits.push(judge(first, i, size));
    i += size;
  }
  const stale = commits.filter((c) => c.stale).length;
  const wrong = commits.filter((c) => !c.ok && !c.stale).length;
  const ok = stale + wrong === 0 && commits.length > 0 && stuck.length === 0;
  const of = `of ${commits.length} commit${commits.length === 1 ? "" : "s"}`;
  let summary: string;
  if (commits.length === 0) summary = stuck.length ? `No commit was accepted; ${stuck.join(", ")} stuck on 409 after every retry.` : "The log is empty.";
  else if (stale) {
    summary = `${stale} ${of} ${stale === 1 ? "was" : "were"} validated against a stale log.`;
    if (wrong) summary += ` ${wrong} more saw the whole log but sent a Stream-Seq other than the events before ${wrong === 1 ? "it" : "them"}.`;
  } else if (wrong) summary = `Every writer saw the whole log, but ${wrong} ${of} sent a Stream-Seq other than the events before ${wrong === 1 ? "it" : "them"}.`;
  else if (stuck.length) summary = `Every accepted commit is correct, but ${stuck.join(", ")} could never commit.`;
  else summary = `All ${commits.length} commits saw the whole log before them.`;
  return { ok, events: events.length, commits, summary };
}

const commitsWord = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;

/** The verdict's three parts for this run: what happened, what Stream-Seq prevented, what to remember. */
export function raceLesson(v: Verdict, st: Pick<RaceState, "config" | "writers">): LabLesson {
  const { pitfalls } = st.config;
  const lost = st.writers.reduce((n, w) => n + w.conflicts, 0);
  const raced = `${st.writers.length} writers extended one log${lost ? `; ${commitsWord(lost)} lost a race with 409` : ""}. ${v.summary}`;
  if (!v.ok && pitfalls.seedingPut)
    return {
      ok: false,
      happened: raced,
      prevented: `Every commit, the honest ones too: the PUT stored Stream-Seq ${padSeq(st.config.seedValue)}, above any true count, so each writer's count was too small and each retry answered 409 again.`,
      remember: "Create a prefix-count stream with a PUT without Stream-Seq, so the first commit's 0 is accepted.",
    };
  if (!v.ok && pitfalls.afterCommit)
    return {
      ok: false,
      happened: raced,
      prevented: "Nothing it was meant to: counting its own events made a stale writer's value greater than the stored one, so the check passed a commit built on a log the writer had not read.",
      remember: "Send the count of events before your commit, never the count after it.",
    };
  if (!v.ok && pitfalls.shortRead)
    return {
      ok: false,
      happened: raced,
      prevented: "Nothing it was meant to: a read cut short by max_bytes stopped before the tail, and a count taken there could still beat the stored value.",
      remember: "Read on until Stream-Up-To-Date: true before you count.",
    };
  if (!v.ok) return { ok: false, happened: raced, prevented: "Not what it should have: see the commits below.", remember: "Every writer, every append carries the prefix count." };
  return {
    ok: true,
    happened: raced,
    prevented: lost
      ? `${commitsWord(lost)} built on a stale read: each sent a count the log had already moved past, got 409 with Stream-Last-Seq, read on k new events and was checked again with n + k. No commit went in without its writer having read every event before it.`
      : "Nothing needed refusing this time: no two writers sent the same count. Run it step by step, or with more writers, to see a 409.",
    remember: "Send the number of events you read, zero-padded, with every commit; on a 409 with Stream-Last-Seq read on to the tail and retry with n + k.",
  };
}
