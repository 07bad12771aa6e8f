// Compaction lab (Ursula v0.9.0, Conditional Writes, §Prefix-count compare-and-set, step 3).
// A prefix-count writer reads to the tail, publishes a snapshot that records its event count and
// state there, and advances retention to it. A second client bootstraps, takes n from the
// snapshot's count plus the messages after it, and commits with the right Stream-Seq. A third
// reads from offset=-1, gets 410, and recovers through bootstrap. With the pitfall on, the
// snapshot keeps only the state: the second client can count only the messages after it, its n
// is too small, and every retry answers 409 ("every honest writer's count is then too small").
// Writer A, client B and reader C are ursa-client's PrefixCountWriter, compact(),
// resumeFromSnapshot() and readFromSnapshot(); the pitfall is the one part the package never does
// (it always keeps the count, and refuses a snapshot without one), so the lab does it by hand.
import { signal } from "@preact/signals";
import { getHeader } from "../api/headers";
import { padSeq } from "../api/streamSeq";
import {
  compact,
  PrefixCountWriter,
  readFromSnapshot,
  resumeFromSnapshot,
  RetriesExhausted,
  StreamGone,
  UrsaStream,
  type Compaction,
  type CountedSnapshot as PackageSnapshot,
  type FetchLike,
} from "../api/ursaClient";
import type { LabLesson } from "./labLesson";
import { ScriptedLab, type LabOptions, type ScriptStep, type StepIO, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";
import { PacedCall } from "./pacedCall";
import { COMPACTION_CODE } from "./labCode";

/** An event of the lab's log; the state a snapshot keeps is their sum. */
interface Event {
  n: number;
}
interface State {
  sum: number;
}

/** What writer A puts in its snapshot: ursa-client's snapshot shape, with the count Conditional
 * Writes says to keep, unless the pitfall leaves it out. */
export type CountedSnapshot = Omit<PackageSnapshot<State>, "count"> & { count?: number };

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

const JSON_STREAM = { contentType: "application/json" };
const fold = (events: readonly unknown[]): State => ({ sum: events.reduce<number>((s, e) => s + (e as Event).n, 0) });
const failure = (io: StepIO, error: unknown): StepResult => {
  const ex = io.exchanges.at(-1);
  return { ok: false, halt: true, note: `${ex?.response?.status ?? ex?.networkError ?? ""} ${ex?.errorCode ?? ""}: ${error instanceof Error ? error.message : String(error)}`.trim() };
};

/** The lab's clients, made on first use with the lab's fetch. */
class Clients {
  private a: PrefixCountWriter | null = null;
  /** Where writer A's requests go: the lab's fetch, or the paced compaction while it runs. */
  route: FetchLike | null = null;
  compaction: PacedCall<Compaction> | null = null;
  b: PrefixCountWriter | null = null;

  writerA(ctx: CompactionCtx, io: StepIO): PrefixCountWriter {
    return (this.a ??= new PrefixCountWriter(ctx.path, { fetch: (input, init) => (this.route ?? io.fetch)(input, init) }));
  }
}

function commitStep(clients: Clients, title: string, explain: string, events: Event[], expectN: number): ScriptStep<CompactionCtx> {
  return {
    actor: "writer A",
    title,
    explain,
    expectStatus: 204,
    code: COMPACTION_CODE.commit,
    run: async (ctx, io) => {
      const { n } = await clients.writerA(ctx, io).commit(() => events);
      ctx.written.push(...events);
      ctx.storedSeq = padSeq(n);
      return { ok: n === expectN, note: `Accepted: Stream-Seq ${padSeq(n)} is the stored value now; the log holds ${ctx.written.length} events.` };
    },
  };
}

/** Client B's commit: one event, with the count it took from the bootstrap (and any retries). */
function bCommit(clients: Clients, title: string, explain: string, expect409: boolean, readOn: boolean): ScriptStep<CompactionCtx> {
  const event: Event = { n: 6 };
  return {
    actor: "client B",
    title,
    explain,
    expectStatus: expect409 ? 409 : 204,
    code: COMPACTION_CODE.bCommit,
    run: async (ctx, io) => {
      const b = clients.b!;
      const before = ctx.b.n ?? 0;
      let seq: string;
      let conflict: string | undefined;
      try {
        const committed = await b.commit(() => [event]);
        seq = padSeq(committed.n);
      } catch (error) {
        if (!(error instanceof RetriesExhausted)) return failure(io, error);
        seq = error.attempts.at(-1)!.streamSeq;
        conflict = error.lastConflict.lastSeq;
      }
      const k = Number(seq) - before;
      ctx.b.n = Number(seq);
      ctx.b.readFrom = b.nextOffset;
      ctx.b.attempts.push({ seq, status: conflict === undefined ? 204 : 409, lastSeq: conflict });
      const read = readOn ? `Read on: k = ${k} new event${k === 1 ? "" : "s"}, so n + k = ${ctx.b.n}. ` : "";
      if (conflict === undefined) {
        ctx.b.committed = { seq, before: ctx.written.length };
        ctx.written.push(event);
        ctx.storedSeq = seq;
        return { ok: !expect409, note: `${read}Accepted with Stream-Seq ${seq}: the ${ctx.written.length - 1} events before B's commit, trimmed ones included.` };
      }
      return {
        ok: expect409,
        note: `${read}409: B sent ${seq}, the stream holds Stream-Last-Seq ${conflict}. B's count leaves out the events the snapshot stands for, so it is below the stored value${readOn ? " again: reading on finds nothing new, and no retry can ever win" : ""}.`,
      };
    },
  };
}

export function compactionSteps(withoutCount: boolean): ScriptStep<CompactionCtx>[] {
  const clients = new Clients();
  const first: Event[] = [{ n: 1 }, { n: 2 }, { n: 3 }];
  const second: Event[] = [{ n: 4 }, { n: 5 }];
  const steps: ScriptStep<CompactionCtx>[] = [
    {
      actor: "setup",
      title: "Create the log without Stream-Seq",
      explain: "So no value is stored and the first commit's 0 is accepted.",
      expectStatus: 201,
      code: COMPACTION_CODE.create,
      run: async (ctx, io) => {
        const { created } = await new UrsaStream(ctx.path, { fetch: io.fetch }).create(JSON_STREAM);
        return created ? { ok: true, note: "Created." } : { ok: false, halt: true, note: "expected 201, the stream was there already" };
      },
    },
    commitStep(clients, "Commit 3 events with Stream-Seq 0", "A read the empty stream: n = 0. Every commit carries the prefix count, the number of events before it.", first, 0),
    commitStep(clients, "Read on, then commit 2 more with Stream-Seq 3", "A counted the 3 events in the log: n = 3. The stored value becomes 3, the count before the latest commit.", second, 3),
    {
      actor: "writer A",
      title: "Read to the tail: n = 5, and the offset where the read ended",
      explain: "consistency=leader, on from Stream-Next-Offset until Stream-Up-To-Date: true. The offset the read ended at is a commit boundary: a snapshot may stand there.",
      code: COMPACTION_CODE.compactRead,
      run: async (ctx, io) => {
        const a = clients.writerA(ctx, io);
        if (withoutCount) await a.readOn();
        else {
          // compact() reads on, publishes and trims; the lab holds each PUT for the step that shows it.
          const call = new PacedCall<Compaction>(io.fetch, (method) => method === "PUT");
          clients.compaction = call;
          clients.route = call.fetch;
          call.start(() => compact(a, fold));
          await call.arrival();
          if (call.settled) return failure(io, await call.result!.catch((e: unknown) => e));
        }
        ctx.a = { n: a.n, offset: a.nextOffset, sum: fold(a.events).sum };
        return { ok: a.n === 5, note: `n = ${a.n} events (state: sum ${ctx.a.sum}), up to date at ${a.nextOffset}.` };
      },
    },
    {
      actor: "writer A",
      title: withoutCount ? "Publish a snapshot there that keeps only the state, not the count" : "Publish a snapshot there that records the event count with the state",
      explain: withoutCount
        ? "The pitfall: {\"state\": …} without \"count\". Bootstrap will hand this out instead of the 5 events before it."
        : "{\"count\": 5, \"state\": …}: “keep the event count in every snapshot you publish and count on from it”.",
      code: withoutCount ? COMPACTION_CODE.publishNoCount : COMPACTION_CODE.compactPublish,
      run: async (ctx, io) => {
        const offset = ctx.a.offset ?? "";
        const state = { sum: ctx.a.sum ?? 0 };
        const body: CountedSnapshot = withoutCount ? { state } : { count: ctx.a.n, state };
        ctx.snapshot = { offset, digest: "", body };
        if (withoutCount) await clients.writerA(ctx, io).stream.publishSnapshot(offset, body, JSON_STREAM);
        else {
          await clients.compaction!.advance();
          if (clients.compaction!.settled) return failure(io, await clients.compaction!.result!.catch((e: unknown) => e));
        }
        const digest = getHeader(io.exchanges.at(-1)?.response?.headers, "stream-snapshot-digest");
        if (!digest) return failure(io, "expected 204 with Stream-Snapshot-Digest");
        ctx.snapshot.digest = digest;
        return { ok: true, note: `Published at ${offset}: ${JSON.stringify(body)}, digest ${digest.slice(0, 16)}…` };
      },
    },
    {
      actor: "writer A",
      title: "Advance retention to the snapshot's offset",
      explain: "The floor may go up to the snapshot and no further. From now on the 5 events before it cannot be read, and offset=-1 answers 410.",
      code: COMPACTION_CODE.compactRetain,
      run: async (ctx, io) => {
        const a = clients.writerA(ctx, io);
        let floor: string;
        if (withoutCount) floor = (await a.stream.retain(ctx.snapshot?.offset ?? "")).retainedOffset;
        else {
          await clients.compaction!.advance();
          floor = (await clients.compaction!.result!).offset;
          clients.route = null;
        }
        const retained = getHeader(io.exchanges.at(-1)?.response?.headers, "stream-retained-offset");
        if (retained !== ctx.snapshot?.offset || floor !== retained) return failure(io, `expected Stream-Retained-Offset ${ctx.snapshot?.offset}, got ${retained}`);
        ctx.floor = retained;
        return { ok: true, note: `The stream is retained from ${retained}. The stored Stream-Seq (${ctx.storedSeq}) is untouched.` };
      },
    },
    {
      actor: "client B",
      title: withoutCount ? "Bootstrap: no count in the snapshot, so count only the messages after it" : "Bootstrap: take n from the snapshot's count plus the messages after it",
      explain: "GET …/bootstrap: the snapshot part, then one part per message after it. A prefix-count writer cannot count from offset=-1 any more.",
      code: withoutCount ? COMPACTION_CODE.resumeNoCount : COMPACTION_CODE.resume,
      run: async (ctx, io) => {
        let base: number | null;
        if (withoutCount) {
          const s = new UrsaStream(ctx.path, { fetch: io.fetch });
          const boot = await s.bootstrap();
          const kept = (boot.snapshot?.value as CountedSnapshot | undefined)?.count;
          base = typeof kept === "number" ? kept : null;
          clients.b = new PrefixCountWriter(s, { maxAttempts: 1, start: { count: base ?? 0, events: boot.messages, offset: boot.nextOffset } });
        } else {
          const resumed = await resumeFromSnapshot<State>(ctx.path, { fetch: io.fetch, maxAttempts: 1 });
          clients.b = resumed.writer;
          base = resumed.snapshot?.count ?? null;
        }
        const b = clients.b;
        const after = b.events.length;
        ctx.b = { ...ctx.b, base, after, n: b.n, readFrom: b.nextOffset };
        const ok = withoutCount ? base === null : base === ctx.a.n;
        return {
          ok,
          note:
            base === null
              ? `The snapshot holds no count: B counts only the ${after} messages after it, n = ${b.n}. The ${ctx.a.n} events it stands for are not counted.`
              : `The snapshot says count ${base}; ${after} messages follow it: n = ${b.n}.`,
        };
      },
    },
  ];
  if (withoutCount) {
    steps.push(
      bCommit(clients, "Commit 1 event with Stream-Seq n = 0", "B's count is too small: the stored value is 3, the count before A's last commit.", true, false),
      bCommit(clients, "On the 409: read on, count the k new events, retry with n + k", "Step 5 of the prefix-count recipe (Ursula v0.9.0, Conditional Writes). Nothing new was written, so k = 0 and the retry sends the same count.", true, true),
      bCommit(clients, "Retry once more", "Every retry answers 409: B can never commit again, and only fixing its count would help.", true, true),
    );
  } else {
    steps.push(bCommit(clients, "Commit 1 event with Stream-Seq n = 5", "The count includes every event since the stream was created, trimmed ones too: it beats the stored 3.", false, false));
  }
  steps.push(
    {
      actor: "reader C",
      title: "Read from offset=-1",
      explain: "A reader that starts from the beginning: the beginning is gone.",
      expectStatus: 410,
      code: COMPACTION_CODE.read410,
      run: async (ctx, io) => {
        try {
          await new UrsaStream(ctx.path, { fetch: io.fetch }).readToTail();
        } catch (error) {
          if (!(error instanceof StreamGone)) return failure(io, error);
          ctx.c.earliest = error.earliestOffset ?? undefined;
          return { ok: error.earliestOffset === ctx.floor, note: `410 ${error.code}: Stream-Earliest-Offset ${error.earliestOffset}, the floor.` };
        }
        return failure(io, "expected 410");
      },
    },
    {
      actor: "reader C",
      title: "Recover through bootstrap: the snapshot's state, then the messages after it",
      explain: "The snapshot stands for everything before the floor; the messages after it are read as they are.",
      code: withoutCount ? COMPACTION_CODE.recoverNoCount : COMPACTION_CODE.recover,
      run: async (ctx, io) => {
        let kept: State | null;
        let count: number | null;
        let events: Event[];
        if (withoutCount) {
          const boot = await new UrsaStream(ctx.path, { fetch: io.fetch }).bootstrap();
          const value = boot.snapshot?.value as CountedSnapshot | undefined;
          kept = value?.state ?? null;
          events = boot.messages as Event[];
          count = typeof value?.count === "number" ? value.count + events.length : null;
        } else {
          const read = await readFromSnapshot<State>(ctx.path, { fetch: io.fetch });
          kept = read.state;
          events = read.events as Event[];
          count = read.count + events.length;
        }
        const sum = (kept?.sum ?? 0) + fold(events).sum;
        ctx.c.recovered = { count, sum, messages: events.length };
        return {
          ok: sum === fold(ctx.written).sum,
          note: `State sum ${kept?.sum ?? 0} from the snapshot, plus ${events.length} message${events.length === 1 ? "" : "s"} after it: sum ${sum}${count === null ? ", and no way to know how many events that is" : `, ${count} events`}.`,
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
