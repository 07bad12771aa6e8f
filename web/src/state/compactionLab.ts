// Compaction lab (Ursula v0.9.0, Conditional Writes, §Prefix-count compare-and-set,
// step 3; ursa-client's compact() and resumeFromSnapshot() in clients/ts/src/compaction.ts do
// the same in code, and e2e/compaction-recipe.test.ts runs them against the compiled binary).
// A prefix-count writer reads to the tail, publishes a snapshot that records its event count and
// state there, and advances retention to it. A second client bootstraps, takes n from the
// snapshot's count plus the messages after it, and commits with the right Stream-Seq. A third
// reads from offset=-1, gets 410, and recovers through bootstrap. With the pitfall on, the
// snapshot keeps only the state: the second client can count only the messages after it, its n
// is too small, and every retry answers 409 ("every honest writer's count is then too small").
import { signal } from "@preact/signals";
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { padSeq } from "../api/streamSeq";
import { partText, readBootstrap } from "../api/bootstrap";
import { bootstrapRequest, publishSnapshotRequest, retentionRequest } from "../api/resourceRequests";
import { readToTail } from "./logReader";
import type { LabLesson } from "./labLesson";
import { ScriptedLab, type LabOptions, type ScriptStep, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";
import type { CountedSnapshot as PackageSnapshot } from "../../../clients/ts/src/index.ts";

/** An event of the lab's log; the state a snapshot keeps is their sum. */
interface Event {
  n: number;
}

/** What writer A puts in its snapshot: ursa-client's snapshot shape, with the count Conditional
 * Writes says to keep, unless the pitfall leaves it out. */
export type CountedSnapshot = Omit<PackageSnapshot<{ sum: number }>, "count"> & { count?: number };

export interface Attempt {
  seq: string;
  status: number | undefined;
  lastSeq?: string;
}

export interface CompactionCtx {
  path: string;
  withoutCount: boolean;
  /** Every event the lab has committed, in order: the truth the verdict checks against. */
  written: Event[];
  /** The stored Stream-Seq, as the last accepted commit left it. */
  storedSeq: string | null;
  a: { n?: number; offset?: string; sum?: number };
  snapshot?: { offset: string; digest: string; body: CountedSnapshot };
  floor?: string;
  b: { base?: number | null; after?: number; n?: number; readFrom?: string; attempts: Attempt[]; committed?: { seq: string; before: number } };
  c: { earliest?: string; recovered?: { count: number | null; sum: number; messages: number } };
}

const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];
const commitBody = (events: Event[]) => JSON.stringify(events);
const parse = (text: string): unknown => JSON.parse(text);

function commitStep(actor: string, title: string, explain: string, events: () => Event[], seq: (ctx: CompactionCtx) => number): ScriptStep<CompactionCtx> {
  return {
    actor,
    title,
    explain,
    expectStatus: 204,
    build: (ctx) => ({ method: "POST", path: ctx.path, headers: [JSON_TYPE, ["Stream-Seq", padSeq(seq(ctx))]], body: commitBody(events()) }),
    after: (ctx, ex) => {
      if (ex.response?.status !== 204) return { ok: false, halt: true, note: `expected 204, got ${ex.response?.status ?? ex.networkError} ${ex.errorCode ?? ""}` };
      ctx.written.push(...events());
      ctx.storedSeq = padSeq(seq(ctx));
      return { ok: true, note: `Accepted: Stream-Seq ${padSeq(seq(ctx))} is the stored value now; the log holds ${ctx.written.length} events.` };
    },
  };
}

/** Client B's commit: one event, with the count it took from the bootstrap (and any retries). */
function bCommit(title: string, explain: string, expect409: boolean, readOn: boolean): ScriptStep<CompactionCtx> {
  const event: Event = { n: 6 };
  return {
    actor: "client B",
    title,
    explain,
    expectStatus: expect409 ? 409 : 204,
    run: async (ctx, transport) => {
      const exchanges: Exchange[] = [];
      let k = 0;
      if (readOn) {
        // The recipe's step 5: read on from where it stopped, count the k new events, retry with n + k.
        const recording: Transport = async (req, opts) => {
          const ex = await transport(req, opts);
          exchanges.push(ex);
          return ex;
        };
        const r = await readToTail(recording, ctx.path, ctx.b.readFrom!);
        if (r.error) return { ok: false, halt: true, exchanges, note: `reading on failed: ${r.error}` };
        k = r.messages.length;
        ctx.b.readFrom = r.to;
        ctx.b.n = (ctx.b.n ?? 0) + k;
      }
      const seq = padSeq(ctx.b.n ?? 0);
      const ex = await transport({ method: "POST", path: ctx.path, headers: [JSON_TYPE, ["Stream-Seq", seq]], body: commitBody([event]) });
      exchanges.push(ex);
      const status = ex.response?.status;
      const lastSeq = getHeader(ex.response?.headers, "stream-last-seq");
      ctx.b.attempts.push({ seq, status, lastSeq });
      const read = readOn ? `Read on: k = ${k} new event${k === 1 ? "" : "s"}, so n + k = ${ctx.b.n}. ` : "";
      if (status === 204) {
        ctx.b.committed = { seq, before: ctx.written.length };
        ctx.written.push(event);
        ctx.storedSeq = seq;
        return { ok: !expect409, exchanges, note: `${read}Accepted with Stream-Seq ${seq}: the ${ctx.written.length - 1} events before B's commit, trimmed ones included.` };
      }
      if (status === 409 && lastSeq !== undefined) {
        return {
          ok: expect409,
          exchanges,
          note: `${read}409: B sent ${seq}, the stream holds Stream-Last-Seq ${lastSeq}. B's count leaves out the events the snapshot stands for, so it is below the stored value${readOn ? " again: reading on finds nothing new, and no retry can ever win" : ""}.`,
        };
      }
      return { ok: false, halt: true, exchanges, note: `expected ${expect409 ? "409 with Stream-Last-Seq" : "204"}, got ${status ?? ex.networkError} ${ex.errorCode ?? ""}` };
    },
  };
}

/** Reads a bootstrap through the transport: the snapshot as JSON, the messages after it, where reads go on. */
async function bootstrapped(ctx: CompactionCtx, transport: Transport): Promise<{ ex: Exchange; snapshot: CountedSnapshot | null; messages: Event[]; next: string } | { ex: Exchange; error: string }> {
  const ex = await transport(bootstrapRequest(ctx.path), { keepBytes: true });
  const r = readBootstrap(ex);
  if (!r.ok) return { ex, error: r.message };
  try {
    const snapshot = r.view.snapshot ? (parse(partText(r.view.snapshot.body)) as CountedSnapshot) : null;
    return { ex, snapshot, messages: r.view.messages.map((m) => parse(partText(m.body)) as Event), next: r.view.nextOffset };
  } catch (e) {
    return { ex, error: `a part is not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function compactionSteps(withoutCount: boolean): ScriptStep<CompactionCtx>[] {
  const first: Event[] = [{ n: 1 }, { n: 2 }, { n: 3 }];
  const second: Event[] = [{ n: 4 }, { n: 5 }];
  const steps: ScriptStep<CompactionCtx>[] = [
    {
      actor: "setup",
      title: "Create the log without Stream-Seq",
      explain: "So no value is stored and the first commit's 0 is accepted.",
      expectStatus: 201,
      build: (ctx) => ({ method: "PUT", path: ctx.path, headers: [JSON_TYPE] }),
      after: (_c, ex) => (ex.response?.status === 201 ? { ok: true, note: "Created." } : { ok: false, halt: true, note: `expected 201, got ${ex.response?.status ?? ex.networkError}` }),
    },
    commitStep("writer A", "Commit 3 events with Stream-Seq 0", "A read the empty stream: n = 0. Every commit carries the prefix count, the number of events before it.", () => first, () => 0),
    commitStep("writer A", "Read on, then commit 2 more with Stream-Seq 3", "A counted the 3 events in the log: n = 3. The stored value becomes 3, the count before the latest commit.", () => second, () => 3),
    {
      actor: "writer A",
      title: "Read to the tail: n = 5, and the offset where the read ended",
      explain: "consistency=leader, on from Stream-Next-Offset until Stream-Up-To-Date: true. The offset the read ended at is a commit boundary: a snapshot may stand there.",
      run: async (ctx, transport) => {
        const exchanges: Exchange[] = [];
        const recording: Transport = async (req, opts) => {
          const ex = await transport(req, opts);
          exchanges.push(ex);
          return ex;
        };
        const r = await readToTail(recording, ctx.path, "-1");
        if (r.error || !r.upToDate) return { ok: false, halt: true, exchanges, note: `the read did not reach the tail: ${r.error ?? "not up to date"}` };
        const events = r.messages.map((m) => parse(m) as Event);
        ctx.a = { n: events.length, offset: r.to, sum: events.reduce((s, e) => s + e.n, 0) };
        return { ok: events.length === 5, exchanges, note: `n = ${events.length} events (state: sum ${ctx.a.sum}), up to date at ${r.to}.` };
      },
    },
    {
      actor: "writer A",
      title: withoutCount ? "Publish a snapshot there that keeps only the state, not the count" : "Publish a snapshot there that records the event count with the state",
      explain: withoutCount
        ? "The pitfall: {\"state\": …} without \"count\". Bootstrap will hand this out instead of the 5 events before it."
        : "{\"count\": 5, \"state\": …}: “keep the event count in every snapshot you publish and count on from it”.",
      build: (ctx) => {
        const body: CountedSnapshot = withoutCount ? { state: { sum: ctx.a.sum ?? 0 } } : { count: ctx.a.n, state: { sum: ctx.a.sum ?? 0 } };
        ctx.snapshot = { offset: ctx.a.offset ?? "", digest: "", body };
        return publishSnapshotRequest(ctx.path, { offset: ctx.a.offset ?? "", contentType: "application/json", body: JSON.stringify(body), match: "", incarnation: "" });
      },
      after: (ctx, ex) => {
        const digest = getHeader(ex.response?.headers, "stream-snapshot-digest");
        if (ex.response?.status !== 204 || !digest) return { ok: false, halt: true, note: `expected 204 with Stream-Snapshot-Digest, got ${ex.response?.status ?? ex.networkError} ${ex.errorCode ?? ""}` };
        ctx.snapshot!.digest = digest;
        return { ok: true, note: `Published at ${ctx.snapshot!.offset}: ${JSON.stringify(ctx.snapshot!.body)}, digest ${digest.slice(0, 16)}…` };
      },
    },
    {
      actor: "writer A",
      title: "Advance retention to the snapshot's offset",
      explain: "The floor may go up to the snapshot and no further. From now on the 5 events before it cannot be read, and offset=-1 answers 410.",
      build: (ctx) => retentionRequest(ctx.path, ctx.snapshot?.offset ?? ""),
      after: (ctx, ex) => {
        const floor = getHeader(ex.response?.headers, "stream-retained-offset");
        if (ex.response?.status !== 204 || floor !== ctx.snapshot?.offset) return { ok: false, halt: true, note: `expected 204 with Stream-Retained-Offset ${ctx.snapshot?.offset}, got ${ex.response?.status ?? ex.networkError} ${floor ?? ""}` };
        ctx.floor = floor;
        return { ok: true, note: `The stream is retained from ${floor}. The stored Stream-Seq (${ctx.storedSeq}) is untouched.` };
      },
    },
    {
      actor: "client B",
      title: withoutCount ? "Bootstrap: no count in the snapshot, so count only the messages after it" : "Bootstrap: take n from the snapshot's count plus the messages after it",
      explain: "GET …/bootstrap: the snapshot part, then one part per message after it. A prefix-count writer cannot count from offset=-1 any more.",
      run: async (ctx, transport) => {
        const b = await bootstrapped(ctx, transport);
        if ("error" in b) return { ok: false, halt: true, exchanges: [b.ex], note: `bootstrap failed: ${b.error}` };
        const base = typeof b.snapshot?.count === "number" ? b.snapshot.count : null;
        ctx.b = { ...ctx.b, base, after: b.messages.length, n: (base ?? 0) + b.messages.length, readFrom: b.next };
        const ok = withoutCount ? base === null : base === ctx.a.n;
        return {
          ok,
          exchanges: [b.ex],
          note:
            base === null
              ? `The snapshot holds no count: B counts only the ${b.messages.length} messages after it, n = ${ctx.b.n}. The ${ctx.a.n} events it stands for are not counted.`
              : `The snapshot says count ${base}; ${b.messages.length} messages follow it: n = ${ctx.b.n}.`,
        };
      },
    },
  ];
  if (withoutCount) {
    steps.push(
      bCommit("Commit 1 event with Stream-Seq n = 0", "B's count is too small: the stored value is 3, the count before A's last commit.", true, false),
      bCommit("On the 409: read on, count the k new events, retry with n + k", "Step 5 of the prefix-count recipe (Ursula v0.9.0, Conditional Writes). Nothing new was written, so k = 0 and the retry sends the same count.", true, true),
      bCommit("Retry once more", "Every retry answers 409: B can never commit again, and only fixing its count would help.", true, true),
    );
  } else {
    steps.push(bCommit("Commit 1 event with Stream-Seq n = 5", "The count includes every event since the stream was created, trimmed ones too: it beats the stored 3.", false, false));
  }
  steps.push(
    {
      actor: "reader C",
      title: "Read from offset=-1",
      explain: "A reader that starts from the beginning: the beginning is gone.",
      expectStatus: 410,
      build: (ctx) => ({ method: "GET", path: `${ctx.path}?offset=-1&consistency=leader`, headers: [] }),
      after: (ctx, ex): StepResult => {
        const earliest = getHeader(ex.response?.headers, "stream-earliest-offset");
        if (ex.response?.status !== 410) return { ok: false, halt: true, note: `expected 410, got ${ex.response?.status ?? ex.networkError}` };
        ctx.c.earliest = earliest;
        return { ok: earliest === ctx.floor, note: `410 ${ex.errorCode ?? ""}: Stream-Earliest-Offset ${earliest}, the floor.` };
      },
    },
    {
      actor: "reader C",
      title: "Recover through bootstrap: the snapshot's state, then the messages after it",
      explain: "The snapshot stands for everything before the floor; the messages after it are read as they are.",
      run: async (ctx, transport) => {
        const b = await bootstrapped(ctx, transport);
        if ("error" in b) return { ok: false, halt: true, exchanges: [b.ex], note: `bootstrap failed: ${b.error}` };
        const count = typeof b.snapshot?.count === "number" ? b.snapshot.count + b.messages.length : null;
        const sum = (b.snapshot?.state.sum ?? 0) + b.messages.reduce((s, e) => s + e.n, 0);
        ctx.c.recovered = { count, sum, messages: b.messages.length };
        const truth = ctx.written.reduce((s, e) => s + e.n, 0);
        return {
          ok: sum === truth,
          exchanges: [b.ex],
          note: `State sum ${b.snapshot?.state.sum ?? 0} from the snapshot, plus ${b.messages.length} message${b.messages.length === 1 ? "" : "s"} after it: sum ${sum}${count === null ? ", and no way to know how many events that is" : `, ${count} events`}.`,
        };
      },
    },
  );
  return steps;
}

export interface CompactionVerdict extends LabLesson {
  rows: { who: string; what: string; ok: boolean }[];
}

/** Judged from what the server answered: did B commit with the true count, did C recover the whole log? */
export function compactionVerdict(ctx: CompactionCtx): CompactionVerdict {
  const total = ctx.written.length;
  const sum = ctx.written.reduce((s, e) => s + e.n, 0);
  const b = ctx.b;
  const committed = b.committed !== undefined && b.committed.seq === padSeq(b.committed.before);
  const refused = b.attempts.filter((a) => a.status === 409).length;
  const rec = ctx.c.recovered;
  const recovered = rec !== undefined && rec.sum === sum && (rec.count === null || rec.count === total);
  const trimmed = ctx.a.n ?? 0;
  const rows = [
    {
      who: "client B",
      what: committed
        ? `committed with Stream-Seq ${b.committed!.seq}: exactly the ${b.committed!.before} events before it, the ${trimmed} the snapshot stands for included`
        : `never committed: ${refused} attempt${refused === 1 ? "" : "s"} with Stream-Seq ${b.attempts.map((a) => a.seq).join(", ")} answered 409 against the stored ${ctx.storedSeq ?? "value"}`,
      ok: committed,
    },
    {
      who: "reader C",
      what: rec
        ? `got 410 from offset=-1 and recovered sum ${rec.sum} of ${sum}${rec.count === null ? " (the snapshot keeps no count)" : ` over ${rec.count} of ${total} events`} from the snapshot and ${rec.messages} message${rec.messages === 1 ? "" : "s"} after it`
        : "did not recover",
      ok: recovered,
    },
  ];
  const ok = committed && recovered;
  const remember = "Keep the event count in every snapshot you publish and count on from it, or never advance retention on a prefix-count stream.";
  if (ok)
    return {
      ok,
      rows,
      happened: "Compaction kept the log whole: B counted on from the snapshot and committed with the right Stream-Seq; C recovered every event through bootstrap.",
      prevented: `A commit on a miscounted log: B's Stream-Seq had to count the ${trimmed} trimmed events too, and it could only because the snapshot kept their number. Reader C was told 410 instead of being handed a log with its start missing.`,
      remember,
    };
  if (committed) return { ok, rows, happened: "C could not recover the log.", prevented: "B's commit was checked against the whole log, trimmed events included.", remember };
  return {
    ok,
    rows,
    happened: `The snapshot keeps no event count, so B counted only the messages after it: its n is below the stored Stream-Seq, and every retry answers 409.`,
    prevented: `A commit validated against part of the log: B's count left out the ${trimmed} events the snapshot stands for, so Stream-Seq refused it. Safe, but B can never commit again.`,
    remember,
  };
}

export class CompactionLab {
  readonly withoutCount = signal(false);
  readonly lab: ScriptedLab<CompactionCtx>;

  constructor(transport: Transport, bucket: string, { name = () => `compaction-${Date.now().toString(36)}`, cleanup }: LabOptions = {}) {
    this.lab = new ScriptedLab<CompactionCtx>(
      transport,
      () => ({ path: `/${bucket}/${name()}`, withoutCount: this.withoutCount.value, written: [], storedSeq: null, a: {}, b: { attempts: [] }, c: {} }),
      () => compactionSteps(this.withoutCount.value),
      cleanup,
    );
  }

  /** The pitfall changes the plot: a new run, on a new stream, with its steps named up front. */
  setWithoutCount(v: boolean): void {
    this.withoutCount.value = v;
    this.lab.reset();
  }

  get verdict(): CompactionVerdict | null {
    const lab = this.lab;
    return lab.finished && !lab.halted.value && lab.records.value.length === lab.steps.length ? compactionVerdict(lab.view.value) : null;
  }
}
