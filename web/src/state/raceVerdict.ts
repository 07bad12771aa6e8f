// The verdict of a race: read the resulting log and check the invariant the recipe promises,
// "every commit's Stream-Seq equals the events before it". The log alone is enough because
// each event carries its writer, commit number and the Stream-Seq it was committed with.

export interface CommitCheck {
  writer: string;
  commit: number;
  seq: string;
  /** Events in the log before this commit's first event. */
  before: number;
  size: number;
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
}

function isRaceEvent(v: unknown): v is RaceEvent {
  const o = v as RaceEvent;
  return !!o && typeof o.w === "string" && typeof o.c === "number" && typeof o.e === "number" && typeof o.seq === "string";
}

export function checkLog(events: unknown[], stuck: string[] = []): Verdict {
  const commits: CommitCheck[] = [];
  let i = 0;
  while (i < events.length) {
    const first = events[i];
    if (!isRaceEvent(first)) {
      commits.push({ writer: "?", commit: -1, seq: "", before: i, size: 1, ok: false, why: "not an event of this lab" });
      i++;
      continue;
    }
    let size = 0;
    while (i + size < events.length) {
      const ev = events[i + size];
      if (!isRaceEvent(ev) || ev.w !== first.w || ev.c !== first.c || ev.e !== size) break;
      size++;
    }
    const seqCount = /^\d+$/.test(first.seq) ? Number(first.seq) : NaN;
    const check: CommitCheck = { writer: first.w, commit: first.c, seq: first.seq, before: i, size, ok: seqCount === i };
    if (size !== first.of) {
      check.ok = false;
      check.why = `commit split: ${size} of ${first.of} events together`;
    } else if (!check.ok) {
      const ev = (n: number) => `${n} event${n === 1 ? "" : "s"}`;
      const base = `Stream-Seq says ${ev(seqCount)} came before, the log has ${i}`;
      check.why =
        seqCount === i + size
          ? `${base}: the value includes this commit's own events (the count after the commit)`
          : seqCount > i
            ? `${base}: it counts events that were not in the log (its own, or a seeded value)`
            : `${base}: the writer missed ${ev(i - seqCount)} — its read did not reach the tail`;
    }
    commits.push(check);
    i += size;
  }
  const bad = commits.filter((c) => !c.ok).length;
  const ok = bad === 0 && commits.length > 0 && stuck.length === 0;
  let summary: string;
  if (commits.length === 0) summary = stuck.length ? `No commit was accepted; ${stuck.join(", ")} stuck on 409 after every retry.` : "The log is empty.";
  else if (bad) summary = `${bad} of ${commits.length} commits were validated against a stale log.`;
  else if (stuck.length) summary = `Every accepted commit is correct, but ${stuck.join(", ")} could never commit.`;
  else summary = `All ${commits.length} commits saw the whole log before them.`;
  return { ok, events: events.length, commits, summary };
}
