// "Retry from the 409": step 5 of the prefix-count recipe (Ursula v0.9.0, Conditional Writes) done
// for the user, on ursa-client. A Stream-Seq 409 carries Stream-Last-Seq; a PrefixCountWriter
// reads the stream to its tail and counts it (readOn, n), so the retry sends n + k. The composer
// then resends the person's own request with only Stream-Seq changed: every header they wrote
// (producer headers, extra ones) stays, which a commit() of the package would not send.
import type { Exchange } from "../api/types";
import { getHeader } from "../api/headers";
import { contentKind } from "../api/contentKind";
import { compareBytewise, incrementSeq, padSeq } from "../api/streamSeq";
import { PrefixCountWriter, UrsaStream } from "../api/ursaClient";
import { transportFetch } from "./clientFetch";
import { pathOf, type Transport } from "./transport";
import type { RetryPlan } from "./retry";

export async function planRetry(ex: Exchange, transport: Transport): Promise<RetryPlan> {
  const lastSeq = getHeader(ex.response?.headers, "stream-last-seq")!;
  const nextOffset = getHeader(ex.response?.headers, "stream-next-offset");
  const sent = getHeader(ex.request.headers, "stream-seq") ?? "";
  const isJson = contentKind(getHeader(ex.request.headers, "content-type")) === "json";

  if (isJson && /^\d+$/.test(sent)) {
    const reads: Exchange[] = [];
    const rec: Transport = async (req, o) => {
      const r = await transport(req, o);
      reads.push(r);
      return r;
    };
    const incarnation = getHeader(ex.request.headers, "stream-incarnation");
    const writer = new PrefixCountWriter(new UrsaStream(pathOf(ex.request.path), { fetch: transportFetch(rec), incarnation }));
    let error: string | undefined;
    try {
      await writer.readOn();
    } catch (e) {
      error = e instanceof Error ? e.message : String(e);
    }
    const total = writer.n;
    const n = Number(sent);
    const k = total - n;
    // The width the person sent, so their own values keep comparing bytewise as numbers.
    const seq = padSeq(total, sent.length);
    const plan: RetryPlan = {
      lastSeq,
      nextOffset,
      method: "prefix-count",
      n,
      k,
      total,
      seq,
      reads,
      explanation: `Read on to the tail: the stream holds ${total} events, ${k} more than the ${n} your count included. Retry with n + k = ${n} + ${k} = ${total}.`,
    };
    if (error) plan.warning = `The read-on failed (${error}); the count may be short.`;
    else if (compareBytewise(seq, lastSeq) <= 0)
      plan.warning = `Even the true count ${total} is not above Stream-Last-Seq ${lastSeq}: the stored value is ahead of the log (a seeding PUT or a counting bug), so every honest retry answers 409.`;
    return plan;
  }
  const next = incrementSeq(lastSeq);
  return {
    lastSeq,
    nextOffset,
    method: "next-value",
    seq: next ?? lastSeq,
    reads: [],
    explanation: next
      ? `Not a prefix count on a JSON stream, so the console proposes the next value after Stream-Last-Seq (${lastSeq} → ${next}). If Stream-Seq numbers commits (outbox), this 409 means “already published”: skip to the fact after ${lastSeq} instead.`
      : `Stream-Last-Seq ${lastSeq} is not a number: edit Stream-Seq to a value bytewise greater than it.`,
    warning: next ? undefined : "Needs a manual value.",
  };
}

