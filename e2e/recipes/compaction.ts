// Recipe: compacting a prefix-count stream (Ursula v0.9.0, Conditional Writes,
// §Prefix-count compare-and-set, step 3).
//
// A prefix-count writer sends Stream-Seq = n, the number of events in the stream before its
// commit, and n counts every event since the stream was created. Retention trims the start of a
// stream, after which those events can no longer be read: "a read from offset=-1 answers 410".
// Ursula's answer: "keep the event count in every snapshot you publish and count on from it".
//
//   1. compact(): a writer that has read to the tail publishes a snapshot at the offset where its
//      read ended (a commit boundary), recording the state it folded AND the event count there,
//      then advances retention to that offset.
//   2. startFromBootstrap(): another client bootstraps,
//      takes the count from the snapshot, adds the events after it, and commits with the right
//      Stream-Seq.
//      A writer that keeps going while others compact can find its read position trimmed
//      (410): commitResuming() then counts on from the newest snapshot and decides again.
//   3. readAll(): a reader that starts at offset=-1 gets 410 once retention has moved, and
//      recovers through bootstrap.
//
// What goes wrong without the count: a client that bootstraps from a snapshot holding only the
// state counts just the events after it. Its n is too small, "every honest writer's count is then
// too small, and each of its retries answers 409" (Conditional Writes): it can never commit again.
//
// Copy this file with http.ts, bootstrap.ts and prefix-count-writer.ts.

import { bootstrap, type Bootstrap } from "./bootstrap.ts";
import { HEADER, readToTail, STREAM_START, UnexpectedResponse } from "./http.ts";
import { PrefixCountWriter, TrimmedError, type CommitReceipt, type LogView, type PrefixCountWriterOptions } from "./prefix-count-writer.ts";

/** What a compacting writer stores in its snapshot: its folded state, and the count that goes with it. */
export interface CountedSnapshot<S> {
  /** Events in the stream before the snapshot's offset: the n a writer counts on from. */
  count: number;
  state: S;
}

export interface Compaction {
  /** The snapshot's offset, which is also the new retained floor. */
  offset: string;
  digest: string;
  count: number;
}

/**
 * Step 1. Reads `writer` on to the tail, folds the events it has read (for a writer started from a
 * snapshot, those after it: fold them onto the snapshot's state) into the state, publishes
 * {count, state} at the tail it read to, and moves retention there. `previous` is the snapshot
 * this writer started from, so the publish is conditional on it.
 *
 * A 409 from the publish means another snapshot won (a newer one, or one published since
 * `previous`): nothing was changed here, and the caller may read on and try again.
 */
export async function compact<S>(
  url: string,
  writer: PrefixCountWriter,
  fold: (events: readonly unknown[]) => S,
  previous: { digest: string } | null = null,
): Promise<Compaction> {
  await writer.readOn();
  const offset = writer.nextOffset;
  if (offset === STREAM_START) throw new Error("nothing to compact: the stream is empty");
  const body: CountedSnapshot<S> = { count: writer.count, state: fold(writer.events) };
  const headers: Record<string, string> = { [HEADER.contentType]: "application/json" };
  // Conditional on the snapshot this state was derived from: never replace one we did not see.
  if (previous) headers[HEADER.snapshotMatch] = previous.digest;
  const res = await fetch(`${url}/snapshot/${offset}`, { method: "PUT", headers, body: JSON.stringify(body) });
  if (res.status !== 204) throw await UnexpectedResponse.from(`PUT ${url}/snapshot/${offset}`, res);
  const digest = res.headers.get(HEADER.snapshotDigest)!;
  // The floor may go up to the snapshot and no further; from now on offset=-1 answers 410.
  const retained = await fetch(`${url}/retention/${offset}`, { method: "PUT" });
  if (retained.status !== 204) throw await UnexpectedResponse.from(`PUT ${url}/retention/${offset}`, retained);
  return { offset, digest, count: body.count };
}

/** A writer that counts on from a bootstrap, and the state the snapshot held. */
export interface Resumed<S> {
  /** Its `events` start with those the bootstrap carried after the snapshot. */
  writer: PrefixCountWriter;
  /** The snapshot's state, or null for a stream without one. */
  state: S | null;
  snapshot: { digest: string } | null;
}

/**
 * Step 2. Bootstraps, takes n from the snapshot's count plus the events after it, and returns a
 * writer that reads on from where the bootstrap stopped. Throws if the snapshot holds no count:
 * counting only the events after it would send a Stream-Seq that is too small, forever.
 */
export async function startFromBootstrap<S>(url: string, options: Omit<PrefixCountWriterOptions, "url" | "start"> = { writerId: "resumed" }): Promise<Resumed<S>> {
  const b = await bootstrap(url);
  let base = 0;
  let state: S | null = null;
  if (b.snapshot) {
    const snapshot = JSON.parse(new TextDecoder().decode(b.snapshot.bytes)) as Partial<CountedSnapshot<S>>;
    if (typeof snapshot.count !== "number") {
      throw new Error(`the snapshot at ${b.snapshot.offset} keeps no event count: a prefix-count writer cannot count on from it`);
    }
    base = snapshot.count;
    state = snapshot.state ?? null;
  }
  const events = b.messages.map((m) => JSON.parse(new TextDecoder().decode(m)) as unknown);
  // The events the bootstrap carried count too; the writer then reads on from where it stopped.
  const writer = new PrefixCountWriter({ ...options, url, start: { count: base, events, offset: b.nextOffset } });
  return { writer, state, snapshot: b.snapshot && { digest: b.snapshot.digest } };
}

/**
 * Step 2, for a writer that keeps committing while others compact: `decide` sees the snapshot's
 * state and the events after it. When retention has moved past this writer (TrimmedError) and no
 * earlier attempt is in doubt, it counts on from the newest snapshot and decides again; nothing of
 * the commit had landed, so nothing is written twice.
 */
export async function commitResuming<S, T>(
  url: string,
  resumed: Resumed<S>,
  decide: (state: S | null, log: LogView) => T[],
  options: Omit<PrefixCountWriterOptions, "url" | "start">,
): Promise<{ receipt: CommitReceipt; resumed: Resumed<S> }> {
  let current = resumed;
  for (;;) {
    try {
      const receipt = await current.writer.commit((log) => decide(current.state, log));
      return { receipt, resumed: current };
    } catch (error) {
      if (!(error instanceof TrimmedError) || error.outcomeUnknown) throw error;
      current = await startFromBootstrap<S>(url, options);
    }
  }
}

/**
 * Step 3. Everything a reader can know of the stream: from offset=-1 while nothing was trimmed,
 * else (on 410) from the snapshot a bootstrap hands out, plus the events after it.
 */
export async function readAll<S>(url: string): Promise<{ from: "start" | "snapshot"; state: S | null; events: unknown[]; bootstrap?: Bootstrap }> {
  try {
    const read = await readToTail(url, STREAM_START);
    return { from: "start", state: null, events: read.events };
  } catch (error) {
    // 410 STREAM_GONE: the start was trimmed. Stream-Earliest-Offset says where the log now
    // begins, and bootstrap hands out the snapshot that covers everything before it.
    if (!(error instanceof UnexpectedResponse) || error.status !== 410) throw error;
  }
  const b = await bootstrap(url);
  const events = b.messages.map((m) => JSON.parse(new TextDecoder().decode(m)) as unknown);
  if (!b.upToDate) events.push(...(await readToTail(url, b.nextOffset)).events);
  const snapshot = b.snapshot ? (JSON.parse(new TextDecoder().decode(b.snapshot.bytes)) as CountedSnapshot<S>) : null;
  return { from: "snapshot", state: snapshot?.state ?? null, events, bootstrap: b };
}
