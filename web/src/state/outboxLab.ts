// Outbox lab (Ursula v0.9.0, Conditional Writes, §Publishing committed facts): one logical
// publisher sends committed facts with producer headers and Stream-Seq = the commit number. The
// answer to one append is lost; the retry with the same Producer-Id, epoch and Producer-Seq is
// answered as a duplicate and writes nothing. A new owner takes over with a higher epoch,
// republishes a fact the old owner already published, gets the "already published" 409
// (Stream-Last-Seq) and skips; once its first write is accepted, the old owner's writes answer
// 403. The verdict reads the stream: every fact once, in commit order.
// The owners are ursa-client OutboxPublishers: both guards, the "already published" rule and the
// 403 fence are the package's; the lab only drops one answer and says what each one meant.
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { OutboxPublisher, ProducerFenced, UrsaStream, type FetchLike } from "../api/ursaClient";
import { ScriptedLab, type LabOptions, type ScriptStep, type StepIO, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";
import type { LabLesson } from "./labLesson";
import { OUTBOX_CODE } from "./labCode";

export const PRODUCER_ID = "outbox-publisher";
export const FACTS = 6;

export interface Owner {
  label: "old owner" | "new owner";
  epoch: number;
  producerSeq: number;
  nextFact: number;
}

export interface OutboxCtx {
  path: string;
  old: Owner;
  next: Owner;
  /** The fact the new owner's checkpoint says to publish first: one the old owner already did. */
  checkpoint: number;
  /** What the server answered at each guard, for the verdict. */
  seen: {
    duplicate?: { fact: number; status?: number; producerSeq?: string; nextOffset?: string };
    alreadyPublished?: { fact: number; lastSeq: string };
    fenced?: { fact: number; status?: number };
    facts?: number[];
  };
}

/** The answer to the next request is dropped on its way back: the publisher sees a network error. */
class LossyLine {
  dropNext = false;
  constructor(private readonly inner: FetchLike) {}
  readonly fetch: FetchLike = async (input, init) => {
    const res = await this.inner(input, init);
    if (!this.dropNext) return res;
    this.dropNext = false;
    await res.body?.cancel();
    throw new TypeError("the lab dropped the answer");
  };
}

/** The two owners, made on first use with the lab's fetch: one publisher per owner and epoch. */
function owners() {
  let line: LossyLine | null = null;
  const made: Partial<Record<"old" | "next", OutboxPublisher>> = {};
  return {
    line: (io: StepIO) => (line ??= new LossyLine(io.fetch)),
    of(ctx: OutboxCtx, who: "old" | "next", io: StepIO): OutboxPublisher {
      // maxNetworkRetries 0: the lab shows a lost answer and its retry as two steps; by default
      // publish() resends the same request by itself.
      return (made[who] ??= new OutboxPublisher(ctx.path, { producerId: PRODUCER_ID, epoch: ctx[who].epoch, fetch: this.line(io).fetch, maxNetworkRetries: 0 }));
    },
  };
}
type Owners = ReturnType<typeof owners>;

/** One publish; `plan` is what the script expects the owner's counters to be when it runs. */
function publish(owners: Owners, who: "old" | "next", plan: { fact: number; epoch: number; producerSeq: number }, title: string, explain: string, code: string, expect?: string): ScriptStep<OutboxCtx> {
  return {
    actor: who === "old" ? "old owner" : "new owner",
    title: `${title} (epoch ${plan.epoch}, Producer-Seq ${plan.producerSeq}, Stream-Seq ${plan.fact})${expect ? `: ${expect}` : ""}`,
    explain,
    code,
    run: async (ctx, io) => {
      const o = ctx[who];
      const p = owners.of(ctx, who, io);
      const fact = o.nextFact;
      let outcome: "published" | "already-published" | "fenced";
      try {
        outcome = await p.publish(fact, [{ fact, by: o.label, epoch: o.epoch }]);
      } catch (error) {
        if (!(error instanceof ProducerFenced)) return failed(io.exchanges.at(-1), error);
        outcome = "fenced";
      }
      return interpret(ctx, o, p, io.exchanges.at(-1)!, fact, outcome);
    },
  };
}

function failed(ex: Exchange | undefined, error: unknown): StepResult {
  return {
    ok: false,
    halt: true,
    note: `${ex?.response?.status ?? ex?.networkError ?? (error instanceof Error ? error.message : String(error))} ${ex?.errorCode ?? ""}: only a 409 with Stream-Last-Seq means "already published"; skipping on anything else would lose facts.`,
  };
}

function interpret(ctx: OutboxCtx, o: Owner, p: OutboxPublisher, ex: Exchange, fact: number, outcome: "published" | "already-published" | "fenced"): StepResult {
  o.producerSeq = p.nextProducerSeq;
  if (outcome === "fenced") {
    ctx.seen.fenced = { fact, status: ex.response?.status };
    return {
      ok: true,
      note: `403 ${ex.errorCode ?? ""}: the new owner's first append was accepted, so epoch ${o.epoch} is fenced (Producer-Epoch: ${getHeader(ex.response?.headers, "producer-epoch")}). The old owner stops.`,
    };
  }
  if (outcome === "already-published") {
    const lastSeq = getHeader(ex.response?.headers, "stream-last-seq") ?? "";
    ctx.seen.alreadyPublished = { fact, lastSeq };
    o.nextFact = p.lastPublished! + 1;
    return {
      ok: true,
      note: `409 with Stream-Last-Seq ${lastSeq}: fact ${fact} is already published. Go on to fact ${o.nextFact}, the first after Stream-Last-Seq, with the same Producer-Seq ${o.producerSeq} — a 409 uses up no Producer-Seq.`,
    };
  }
  o.nextFact = fact + 1;
  if (ex.response?.status === 204) {
    const producerSeq = getHeader(ex.response.headers, "producer-seq");
    const nextOffset = getHeader(ex.response.headers, "stream-next-offset");
    ctx.seen.duplicate = { fact, status: 204, producerSeq, nextOffset };
    return {
      ok: true,
      note: `204, a duplicate: Producer-Seq ${o.producerSeq - 1} of epoch ${o.epoch} was already accepted, so nothing was written again — and not 409, although Stream-Seq ${fact} is no longer greater than the stored one: the producer check comes first. ${nextOffset ? `Stream-Next-Offset ${nextOffset} is where fact ${fact} ended the first time, so` : "So"} fact ${fact} is in the log; go on with Producer-Seq ${o.producerSeq}.`,
    };
  }
  return { ok: true, note: `Published fact ${fact}.` };
}

export function outboxSteps(): ScriptStep<OutboxCtx>[] {
  const o = owners();
  return [
    {
      actor: "setup",
      title: "Create the outbox stream",
      explain: "A fresh application/json stream, created without Stream-Seq.",
      code: OUTBOX_CODE.create,
      run: async (ctx, io) => {
        const { created } = await new UrsaStream(ctx.path, { fetch: io.fetch }).create({ contentType: "application/json" });
        return created ? { ok: true, note: "Created." } : { ok: false, halt: true, note: "expected 201, the stream was there already" };
      },
    },
    publish(o, "old", { fact: 1, epoch: 0, producerSeq: 0 }, "Old owner publishes fact 1", "Both guards on each append: producer headers for retries, Stream-Seq = the commit's number, zero-padded.", OUTBOX_CODE.publish),
    {
      ...publish(o, "old", { fact: 2, epoch: 0, producerSeq: 1 }, "Old owner publishes fact 2, and the answer is lost", "The next commit, the next Producer-Seq. The server answers, but the answer never reaches the old owner (the lab drops it): did fact 2 commit?", OUTBOX_CODE.lost),
      run: async (ctx, io) => {
        o.line(io).dropNext = true;
        try {
          await o.of(ctx, "old", io).publish(2, [{ fact: 2, by: ctx.old.label, epoch: ctx.old.epoch }]);
        } catch (error) {
          if (!(error instanceof TypeError)) return failed(io.exchanges.at(-1), error);
        }
        const ex = io.exchanges.at(-1);
        return ex?.response?.status === 200
          ? { ok: true, lost: true, note: "The answer was lost on its way back. The old owner cannot tell whether fact 2 committed; a retry is safe only because it carries the same producer headers." }
          : { ok: false, halt: true, note: `expected the server to accept fact 2 (200), got ${ex?.response?.status ?? ex?.networkError} ${ex?.errorCode ?? ""}` };
      },
    },
    publish(
      o,
      "old",
      { fact: 2, epoch: 0, producerSeq: 1 },
      "Old owner retries fact 2 with the same Producer-Id, epoch and Producer-Seq",
      "Producer deduplication runs first: a retry of an append that was already accepted is answered as a duplicate, not 409, and nothing is written twice.",
      OUTBOX_CODE.retry,
      "expect 204, duplicate",
    ),
    publish(o, "old", { fact: 3, epoch: 0, producerSeq: 2 }, "Old owner publishes fact 3", "The old owner gets this far before the takeover; the new owner's checkpoint only knows about fact 1.", OUTBOX_CODE.publish),
    {
      actor: "new owner",
      title: "Takeover: the new owner starts with epoch 1, Producer-Seq 0, from its checkpoint (fact 2)",
      explain: "On takeover the new owner uses a higher Producer-Epoch and starts Producer-Seq again at 0. It does not know how far the old owner got.",
      code: OUTBOX_CODE.takeover,
      run: async (ctx, io) => {
        const p = o.of(ctx, "next", io);
        return { ok: p.nextProducerSeq === 0, note: "No request yet: the old epoch is not fenced until one of the new owner's appends is accepted." };
      },
    },
    publish(
      o,
      "next",
      { fact: 2, epoch: 1, producerSeq: 0 },
      "New owner republishes fact 2",
      "Republishing a fact the old owner already published: the Stream-Seq check answers 409 with Stream-Last-Seq, which here means “already published”.",
      OUTBOX_CODE.already,
      "expect 409, already published",
    ),
    publish(o, "next", { fact: 4, epoch: 1, producerSeq: 0 }, "New owner skips to fact 4, the first after Stream-Last-Seq", "Same Producer-Seq: the 409 used none up. Its acceptance fences the old epoch.", OUTBOX_CODE.publish),
    publish(o, "old", { fact: 4, epoch: 0, producerSeq: 3 }, "Old owner tries fact 4", "Once the new owner's first append is accepted, appends with the old epoch answer 403.", OUTBOX_CODE.fenced, "expect 403, fenced"),
    publish(o, "next", { fact: 5, epoch: 1, producerSeq: 1 }, "New owner publishes fact 5", "Publishing goes on in commit order.", OUTBOX_CODE.publish),
    publish(o, "next", { fact: 6, epoch: 1, producerSeq: 2 }, "New owner publishes fact 6", "The last fact of the source of truth.", OUTBOX_CODE.publish),
    {
      actor: "reader",
      title: "Read the stream: every fact once, in commit order",
      explain: "Stream-Seq accepts each fact at most once and in commit order, whoever publishes it.",
      code: OUTBOX_CODE.read,
      run: async (ctx, io) => {
        const { messages } = await new UrsaStream(ctx.path, { fetch: io.fetch }).readToTail();
        const facts = messages.map((m) => (m as { fact: number }).fact);
        ctx.seen.facts = facts;
        const want = Array.from({ length: FACTS }, (_, i) => i + 1);
        const ok = JSON.stringify(facts) === JSON.stringify(want);
        return { ok, note: ok ? `Facts ${facts.join(", ")}: none lost, none twice.` : `Facts on the stream: ${facts.join(", ")}; expected ${want.join(", ")}.` };
      },
    },
  ];
}

export function createOutboxLab(transport: Transport, bucket: string, { name = () => `outbox-${Date.now().toString(36)}`, cleanup }: LabOptions = {}) {
  return new ScriptedLab<OutboxCtx>(
    transport,
    () => ({
      path: `/${bucket}/${name()}`,
      old: { label: "old owner", epoch: 0, producerSeq: 0, nextFact: 1 },
      next: { label: "new owner", epoch: 1, producerSeq: 0, nextFact: 2 },
      checkpoint: 2,
      seen: {},
    }),
    outboxSteps,
    cleanup,
  );
}


const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** The verdict, from what the server answered at each guard and what the stream holds at the end. */
export function outboxLesson(ctx: OutboxCtx): LabLesson {
  const { duplicate, alreadyPublished, fenced, facts } = ctx.seen;
  const want = Array.from({ length: FACTS }, (_, i) => i + 1);
  const once = facts !== undefined && facts.join() === want.join();
  const ok = once && duplicate?.status === 204 && alreadyPublished !== undefined && fenced?.status === 403;
  const remember = "Send both guards on every append: a retry with the same Producer-Id, epoch and Producer-Seq is always safe, and only a 409 with Stream-Last-Seq means “already published”.";
  if (!ok)
    return {
      ok,
      happened: facts ? `The stream holds facts ${facts.join(", ") || "none"}; expected ${want.join(", ")}, each once.` : "The run stopped before the stream was read.",
      prevented: [
        duplicate?.status === 204 ? "The retry was answered as a duplicate." : "The retry was not answered as a duplicate.",
        alreadyPublished ? "The republished fact was refused with 409." : "The republished fact was not refused.",
        fenced?.status === 403 ? "The old owner was fenced with 403." : "The old owner was not fenced.",
      ].join(" "),
      remember,
    };
  const total = facts.length;
  return {
    ok,
    happened: `The answer to fact ${duplicate!.fact} was lost and the old owner sent it again: 204, a duplicate. The new owner took over at epoch 1, republished fact ${alreadyPublished!.fact} and got 409 with Stream-Last-Seq ${Number(alreadyPublished!.lastSeq)}, so it skipped ahead; the old owner's late fact ${fenced!.fact} answered 403. The stream holds facts ${facts.join(", ")}: ${plural(total, "fact")}, each once, in commit order.`,
    prevented: `Three facts written twice: fact ${duplicate!.fact} retried after its lost answer (producer deduplication wrote nothing), fact ${alreadyPublished!.fact} republished by the new owner (Stream-Seq refused it), and fact ${fenced!.fact} sent late by the old owner (its epoch was fenced).`,
    remember,
  };
}
