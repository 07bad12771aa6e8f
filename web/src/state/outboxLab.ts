// Outbox lab (Ursula v0.9.0, Conditional Writes, §Publishing committed facts): one logical
// publisher sends committed facts with producer headers and Stream-Seq = the commit number. The
// answer to one append is lost; the retry with the same Producer-Id, epoch and Producer-Seq is
// answered as a duplicate and writes nothing. A new owner takes over with a higher epoch,
// republishes a fact the old owner already published, gets the "already published" 409
// (Stream-Last-Seq) and skips; once its first write is accepted, the old owner's writes answer
// 403. The verdict reads the stream: every fact once, in commit order.
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { padSeq } from "../api/streamSeq";
import { readToTail } from "./logReader";
import { ScriptedLab, type LabOptions, type ScriptStep, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";
import type { LabLesson } from "./labLesson";

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

/** One publish; `plan` is what the script expects the owner's counters to be when it runs. */
function publish(who: "old" | "next", plan: { fact: number; epoch: number; producerSeq: number }, title: string, explain: string, expect?: string): ScriptStep<OutboxCtx> {
  return {
    actor: who === "old" ? "old owner" : "new owner",
    title: `${title} (epoch ${plan.epoch}, Producer-Seq ${plan.producerSeq}, Stream-Seq ${plan.fact})${expect ? `: ${expect}` : ""}`,
    explain,
    build: (ctx) => {
      const o = ctx[who];
      return {
        method: "POST",
        path: ctx.path,
        headers: [
          ["Content-Type", "application/json"],
          ["Producer-Id", PRODUCER_ID],
          ["Producer-Epoch", String(o.epoch)],
          ["Producer-Seq", String(o.producerSeq)],
          ["Stream-Seq", padSeq(o.nextFact)],
        ],
        body: JSON.stringify([{ fact: o.nextFact, by: o.label, epoch: o.epoch }]),
      };
    },
    after: (ctx, ex) => interpret(ctx, ctx[who], ex),
  };
}

function interpret(ctx: OutboxCtx, o: Owner, ex: Exchange): StepResult {
  const status = ex.response?.status;
  const lastSeq = getHeader(ex.response?.headers, "stream-last-seq");
  if (status === 204 && getHeader(ex.request.headers, "producer-seq") !== undefined) {
    const fact = o.nextFact;
    const producerSeq = getHeader(ex.response?.headers, "producer-seq");
    const nextOffset = getHeader(ex.response?.headers, "stream-next-offset");
    ctx.seen.duplicate = { fact, status, producerSeq, nextOffset };
    o.producerSeq++;
    o.nextFact++;
    return {
      ok: true,
      note: `204, a duplicate: Producer-Seq ${o.producerSeq - 1} of epoch ${o.epoch} was already accepted, so nothing was written again — and not 409, although Stream-Seq ${fact} is no longer greater than the stored one: the producer check comes first. ${nextOffset ? `Stream-Next-Offset ${nextOffset} is where fact ${fact} ended the first time, so` : "So"} fact ${fact} is in the log; go on with Producer-Seq ${o.producerSeq}.`,
    };
  }
  if (status === 200) {
    const fact = o.nextFact;
    o.producerSeq++;
    o.nextFact++;
    return { ok: true, note: `Published fact ${fact}.` };
  }
  if (status === 409 && lastSeq !== undefined) {
    const skipTo = Number(lastSeq) + 1;
    const skipped = o.nextFact;
    ctx.seen.alreadyPublished = { fact: skipped, lastSeq };
    o.nextFact = skipTo;
    return {
      ok: true,
      note: `409 with Stream-Last-Seq ${lastSeq}: fact ${skipped} is already published. Go on to fact ${skipTo}, the first after Stream-Last-Seq, with the same Producer-Seq ${o.producerSeq} — a 409 uses up no Producer-Seq.`,
    };
  }
  if (status === 403) {
    ctx.seen.fenced = { fact: o.nextFact, status };
    return {
      ok: true,
      note: `403 ${ex.errorCode ?? ""}: the new owner's first append was accepted, so epoch ${o.epoch} is fenced (Producer-Epoch: ${getHeader(ex.response?.headers, "producer-epoch")}). The old owner stops.`,
    };
  }
  return { ok: false, halt: true, note: `${status ?? ex.networkError} ${ex.errorCode ?? ""}: only a 409 with Stream-Last-Seq means "already published"; skipping on anything else would lose facts.` };
}

export function outboxSteps(): ScriptStep<OutboxCtx>[] {
  return [
    {
      actor: "setup",
      title: "Create the outbox stream",
      explain: "A fresh application/json stream, created without Stream-Seq.",
      expectStatus: 201,
      build: (ctx) => ({ method: "PUT", path: ctx.path, headers: [["Content-Type", "application/json"]] }),
      after: (_c, ex) => (ex.response?.status === 201 ? { ok: true, note: "Created." } : { ok: false, halt: true, note: `expected 201, got ${ex.response?.status}` }),
    },
    publish("old", { fact: 1, epoch: 0, producerSeq: 0 }, "Old owner publishes fact 1", "Both guards on each append: producer headers for retries, Stream-Seq = the commit's number, zero-padded."),
    {
      ...publish("old", { fact: 2, epoch: 0, producerSeq: 1 }, "Old owner publishes fact 2, and the answer is lost", "The next commit, the next Producer-Seq. The server answers, but the answer never reaches the old owner (the lab drops it): did fact 2 commit?"),
      after: (_ctx, ex) =>
        ex.response?.status === 200
          ? { ok: true, lost: true, note: "The answer was lost on its way back. The old owner cannot tell whether fact 2 committed; a retry is safe only because it carries the same producer headers." }
          : { ok: false, halt: true, note: `expected the server to accept fact 2 (200), got ${ex.response?.status ?? ex.networkError} ${ex.errorCode ?? ""}` },
    },
    publish(
      "old",
      { fact: 2, epoch: 0, producerSeq: 1 },
      "Old owner retries fact 2 with the same Producer-Id, epoch and Producer-Seq",
      "Producer deduplication runs first: a retry of an append that was already accepted is answered as a duplicate, not 409, and nothing is written twice.",
      "expect 204, duplicate",
    ),
    publish("old", { fact: 3, epoch: 0, producerSeq: 2 }, "Old owner publishes fact 3", "The old owner gets this far before the takeover; the new owner's checkpoint only knows about fact 1."),
    {
      actor: "new owner",
      title: "Takeover: the new owner starts with epoch 1, Producer-Seq 0, from its checkpoint (fact 2)",
      explain: "On takeover the new owner uses a higher Producer-Epoch and starts Producer-Seq again at 0. It does not know how far the old owner got.",
      run: async () => ({ ok: true, note: "No request yet: the old epoch is not fenced until one of the new owner's appends is accepted." }),
    },
    publish(
      "next",
      { fact: 2, epoch: 1, producerSeq: 0 },
      "New owner republishes fact 2",
      "Republishing a fact the old owner already published: the Stream-Seq check answers 409 with Stream-Last-Seq, which here means “already published”.",
      "expect 409, already published",
    ),
    publish("next", { fact: 4, epoch: 1, producerSeq: 0 }, "New owner skips to fact 4, the first after Stream-Last-Seq", "Same Producer-Seq: the 409 used none up. Its acceptance fences the old epoch."),
    publish("old", { fact: 4, epoch: 0, producerSeq: 3 }, "Old owner tries fact 4", "Once the new owner's first append is accepted, appends with the old epoch answer 403.", "expect 403, fenced"),
    publish("next", { fact: 5, epoch: 1, producerSeq: 1 }, "New owner publishes fact 5", "Publishing goes on in commit order."),
    publish("next", { fact: 6, epoch: 1, producerSeq: 2 }, "New owner publishes fact 6", "The last fact of the source of truth."),
    {
      actor: "reader",
      title: "Read the stream: every fact once, in commit order",
      explain: "Stream-Seq accepts each fact at most once and in commit order, whoever publishes it.",
      run: async (ctx, transport) => {
        const exchanges: Exchange[] = [];
        const recording: Transport = async (req) => {
          const ex = await transport(req);
          exchanges.push(ex);
          return ex;
        };
        const r = await readToTail(recording, ctx.path, "-1");
        const facts = r.messages.map((m) => (JSON.parse(m) as { fact: number }).fact);
        ctx.seen.facts = facts;
        const want = Array.from({ length: FACTS }, (_, i) => i + 1);
        const ok = JSON.stringify(facts) === JSON.stringify(want);
        return { ok, exchanges, note: ok ? `Facts ${facts.join(", ")}: none lost, none twice.` : `Facts on the stream: ${facts.join(", ")}; expected ${want.join(", ")}.` };
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
