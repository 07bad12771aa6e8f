// Compacting a prefix-count stream. Ursula v0.9.0, Conditional Writes, prefix-count step 3: "n
// counts every event since the stream was created. Once retention has trimmed the start of the
// stream, those events can't be read (a read from offset=-1 answers 410), so keep the event count
// in every snapshot you publish and count on from it, or don't advance retention on a prefix-count
// stream."
//
//   compact()             a writer that has read to the tail publishes {count, state} at the
//                         offset it read to (a commit boundary) and moves retention there;
//   resumeFromSnapshot()  another client bootstraps and counts on from the snapshot's count;
//   commitResuming()      a writer trimmed past while committing counts on from the newest snapshot;
//   readFromSnapshot()    a reader that gets 410 from offset=-1 recovers through bootstrap.
//
// Without the count a client can count only the events after the snapshot: its n is too small,
// and "every honest writer's count is then too small, and each of its retries answers 409".

import { StreamGone } from "./errors.js";
import { PrefixCountWriter, type Committed, type Decide, type LogView, type PrefixCountWriterOptions } from "./prefix-count-writer.js";
import { UrsaStream, type Bootstrap } from "./stream.js";
import { STREAM_START } from "./headers.js";

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
 * Reads `writer` on to the tail, folds the events it has read into a state, publishes
 * `{ count, state }` at that tail and moves retention there. `previous` (the snapshot the writer
 * started from) makes the publish conditional on it, so a newer snapshot is never replaced; a
 * 409 then means another snapshot won and nothing was changed. Ursula v0.9.0, Conditional
 * Writes, prefix-count step 3: "keep the event count in every snapshot you publish". Prevents a
 * trimmed stream whose writers can no longer count.
 */
export async function compact<S>(writer: PrefixCountWriter, fold: (events: readonly unknown[]) => S, previous: { digest: string } | null = null): Promise<Compaction> {
  await writer.readOn();
  const offset = writer.nextOffset;
  if (offset === STREAM_START) throw new RangeError("nothing to compact: the stream is empty");
  const body: CountedSnapshot<S> = { count: writer.n, state: fold(writer.events) };
  const published = await writer.stream.publishSnapshot(offset, body, { contentType: "application/json", match: previous?.digest });
  // The floor may go up to the snapshot and no further; from now on offset=-1 answers 410.
  await writer.stream.retain(offset);
  return { offset, digest: published.digest, count: body.count };
}

/** A writer that counts on from a snapshot, and what the snapshot held. */
export interface Resumed<S> {
  writer: PrefixCountWriter;
  /** The snapshot's state, or null for a stream without one. */
  state: S | null;
  snapshot: { offset: string; digest: string; count: number } | null;
}

/** The count and state of a snapshot compact() wrote; throws for one that keeps no count. */
export function countedSnapshotOf<S>(snapshot: NonNullable<Bootstrap["snapshot"]>): CountedSnapshot<S> {
  const value = snapshot.value as Partial<CountedSnapshot<S>> | undefined;
  if (typeof value?.count !== "number") {
    throw new TypeError(`the snapshot at ${snapshot.offset} keeps no event count: a prefix-count writer cannot count on from it`);
  }
  return { count: value.count, state: value.state as S };
}

/**
 * Bootstraps and returns a writer whose n is the snapshot's count plus the events after it.
 * Ursula v0.9.0, Conditional Writes, prefix-count step 3: "keep the event count in every snapshot
 * you publish and count on from it". Throws for a snapshot without a count rather than count only
 * the events after it, which would send a Stream-Seq that is too small on every retry.
 */
export async function resumeFromSnapshot<S>(stream: string | UrsaStream, options: Omit<PrefixCountWriterOptions, "start"> = {}): Promise<Resumed<S>> {
  const s = typeof stream === "string" ? new UrsaStream(stream, options) : stream;
  const b = await s.bootstrap();
  let count = 0;
  let state: S | null = null;
  if (b.snapshot) ({ count, state } = countedSnapshotOf<S>(b.snapshot));
  // The events the bootstrap carried count too; the writer reads on from where it stopped.
  const writer = new PrefixCountWriter(s, { ...options, start: { count, events: b.messages, offset: b.nextOffset } });
  return { writer, state, snapshot: b.snapshot && { offset: b.snapshot.offset, digest: b.snapshot.digest, count } };
}

/**
 * Ursula v0.9.0, Conditional Writes, prefix-count step 3, for a writer that keeps committing while
 * others compact: "count on from" the newest snapshot instead of failing on the 410 that "a read
 * from offset=-1 answers". Commits with `resumed.writer`; when retention has moved past it
 * (StreamGone) it counts on from the newest snapshot and decides again. A StreamGone means no
 * attempt of the commit landed (the writer throws OutcomeUnknown instead when an earlier answer
 * was lost), so nothing is written twice. `decide` sees the snapshot's state too.
 */
export async function commitResuming<S>(
  resumed: Resumed<S>,
  decide: (state: S | null, log: LogView) => unknown[],
  options: Omit<PrefixCountWriterOptions, "start"> = {},
): Promise<{ committed: Committed; resumed: Resumed<S> }> {
  let current = resumed;
  for (;;) {
    const state = current.state;
    const decideHere: Decide = (log) => decide(state, log);
    try {
      return { committed: await current.writer.commit(decideHere), resumed: current };
    } catch (error) {
      if (!(error instanceof StreamGone)) throw error;
      current = await resumeFromSnapshot<S>(current.writer.stream, options);
    }
  }
}

/**
 * Everything a reader can know of the stream: from offset=-1 while nothing was trimmed, else, on
 * 410, the snapshot a bootstrap hands out plus the events after it. Ursula v0.9.0, Conditional
 * Writes, prefix-count step 3: once trimmed, "a read from offset=-1 answers 410"; the count comes
 * from the snapshot, never from counting what is left.
 */
export async function readFromSnapshot<S>(stream: string | UrsaStream, options: Omit<PrefixCountWriterOptions, "start"> = {}): Promise<{ from: "start" | "snapshot"; state: S | null; count: number; events: unknown[] }> {
  const s = typeof stream === "string" ? new UrsaStream(stream, options) : stream;
  try {
    const read = await s.readToTail(STREAM_START);
    return { from: "start", state: null, count: 0, events: read.messages };
  } catch (error) {
    // 410: the start was trimmed; bootstrap hands out the snapshot that covers it.
    if (!(error instanceof StreamGone)) throw error;
  }
  const b = await s.bootstrap();
  const events = [...b.messages];
  if (!b.upToDate) events.push(...(await s.readToTail(b.nextOffset)).messages);
  const counted = b.snapshot ? countedSnapshotOf<S>(b.snapshot) : null;
  return { from: "snapshot", state: counted?.state ?? null, count: counted?.count ?? 0, events };
}
