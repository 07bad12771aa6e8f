// The verdict of a race: read the resulting log and check the invariant the recipe promises,
// "every commit's Stream-Seq equals the events before it". The log alone is enough because
// each event carries its writer, commit number, the Stream-Seq it was committed with and the
// count the writer had read. Two different failures are told apart: a commit whose writer had
// not read every event before it was validated against a stale log; a commit whose writer had,
// but whose Stream-Seq says otherwise (the count after its own commit, a seeded value), broke
// the recipe without being stale, like the first commit on an empty log under the after-commit
// pitfall.

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
