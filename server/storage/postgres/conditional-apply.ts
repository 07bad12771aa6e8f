// Appends without holding a lock across round trips. The plan (protocol/writes.ts) reads the
// stream's committed row, with its version and the producer's row, in one statement; ursa decides
// as it always does; and one prepared statement applies the effects only if the row still has that
// version (a trigger bumps it on every update, schema step 4), sending the wake-up in the same
// statement. If another write, on this instance or another, moved the version in between, the
// statement changes nothing and the write reads and decides again. So an append costs two round
// trips, and a PostgreSQL commit shared with the appends queued beside it (conditional-commit.ts).
//
// Only plans of one stream whose effects are appends take this path; anything else (a create, a
// delete, an expired stream, an append that evicts the producer it re-admits) returns "locked"
// and runs under row locks in group-commit.ts, as does a write that keeps losing the race.

import type { SQL } from "bun";
import { applyAppend, producerAfter } from "../../protocol/append";
import { hasExpired } from "../../protocol/delete";
import { isRemembered, type ProducerClock, type ProducerState } from "../../protocol/producer";
import { ProducerTable } from "../../protocol/producer-table";
import { splitKey, type StreamState } from "../../protocol/state";
import type { StreamView, WritePlan } from "../../protocol/writes";
import { appendsChange, type SnapshotUpload } from "../store";
import type { AppendApply } from "./apply-statement";
import type { ConditionalCommit } from "./conditional-commit";
import type { DecidedRow, DecidedRows } from "./decided-rows";
import { WriteEffects } from "./group-commit";
import { producerOf, STREAM_COLUMNS, stateOf, type ProducerRow, type StreamRow } from "./rows";

/** The stream row, its version, and the one producer's row as JSON ($3; null for none). */
const READ = `SELECT ${STREAM_COLUMNS}, version,
  (SELECT row_to_json(p) FROM producers p WHERE p.stream_id = streams.id AND p.producer_id = $3) AS producer
  FROM streams WHERE bucket = $1 AND name = $2`;

const READ_PRODUCERS = `SELECT * FROM producers WHERE stream_id = $1`;

export type Attempt<T> = { value: T } | "contended" | "locked";

interface ReadRow extends StreamRow {
  version: string;
  producer: ProducerRow | null;
}

export interface ConditionalContext {
  sql: SQL;
  commit: ConditionalCommit;
  now: () => number;
  clock: () => ProducerClock;
  /** Rows this instance's appends committed, to decide the next append of a stream on. */
  decided: DecidedRows;
}

/** Whether a plan may take this path: one stream, nothing but its row and a producer read, no bucket count. */
export function isConditional(plan: WritePlan<unknown, SnapshotUpload>): boolean {
  const [read] = plan.reads;
  return plan.reads.length === 1 && !plan.counts && !read!.attrs && read!.boundary == null && !read!.fork && !read!.chain;
}

export async function attempt<T>(c: ConditionalContext, plan: WritePlan<T, SnapshotUpload>): Promise<Attempt<T>> {
  const read = plan.reads[0]!;
  const producerId = read.producer ?? null;
  const kept = c.decided.take(read.key);
  // A kept row serves when the decision needs no producer, or the one it needs is remembered in it.
  const usable = kept && (producerId === null || (kept.state.producers.has(producerId) && isRemembered(kept.state.producers.get(producerId)!, c.clock())));
  const base = usable ? kept : await readRow(c, read.key, producerId);
  const now = c.now();
  const clock = c.clock();
  if (base && hasExpired(base.state, now)) return "locked";
  const view: StreamView = { state: base?.state, attrs: null, atBoundary: false, appendAt: null, sources: [] };
  const decision = plan.decide([view], clock, null);
  if (decision.effects.length === 0) {
    // A refusal or a duplicate is true of the committed state it was decided on, which a kept row
    // may no longer be (nothing checks its version): that one is decided again on a fresh read.
    if (usable) return attempt(c, plan);
    return { value: decision.result(new Map()) };
  }
  if (decision.effects.some((e) => e.kind !== "append")) return "locked";
  const effect = decision.effects[0]!;
  if (effect.kind !== "append" || decision.effects.length > 1 || !base) return "locked";

  const fx = new WriteEffects();
  let next = effect.state;
  const starts: number[] = [];
  const appendStarts: number[] = [];
  const data: Uint8Array[] = [];
  const evicts: string[] = [];
  const producers = new Map<string, ProducerState>();
  for (const append of effect.appends) {
    next = applyAppend(next, append, now);
    let at = append.start;
    for (const m of append.messages) {
      starts.push(at);
      appendStarts.push(append.start);
      data.push(m);
      at += m.length;
    }
    if (append.evicts !== null) evicts.push(append.evicts);
    if (append.producer) producers.set(append.producer.id, producerAfter({ ...append, producer: append.producer }, now));
    fx.appendedBytes += append.bytes;
    fx.appendedMessages += append.messages.length;
  }
  // One statement cannot both delete and insert one row: such a batch runs under locks.
  if (evicts.some((id) => producers.has(id))) return "locked";
  fx.changes.push(appendsChange(next, effect.appends));
  const apply: AppendApply = { key: read.key, version: base.version, next, atMs: now, starts, appendStarts, data, evicts, producers: [...producers] };
  if (!(await c.commit.submit(apply, fx))) return "contended";
  c.decided.keep(read.key, { state: next, version: String(BigInt(base.version) + 1n) });
  return { value: decision.result(new Map<string, StreamState | undefined>([[effect.key, next]])) };
}

/** The committed row of the stream at `key` with its version, and the producers a decision about `producerId` needs. */
async function readRow(c: ConditionalContext, key: string, producerId: string | null): Promise<DecidedRow | undefined> {
  const { bucket, name } = splitKey(key);
  const [row]: ReadRow[] = await c.sql.unsafe(READ, [bucket, name, producerId ?? ""]);
  if (!row) return undefined;
  if (hasExpired(stateOf(row), c.now())) return { state: stateOf(row), version: row.version };
  return { state: stateOf(row, producerId === null ? ProducerTable.EMPTY : await producersFor(c, row, c.clock())), version: row.version };
}

/**
 * The producers a decision about one producer needs (as StreamWrites.withProducers loads them):
 * that one alone when the stream remembers it, else the whole table. Read after the row, the
 * table may be newer than it; the version check then refuses the apply, and the write reads again.
 */
async function producersFor(c: ConditionalContext, row: ReadRow, clock: ProducerClock): Promise<ProducerTable> {
  if (row.producer) {
    const entry = producerOf(row.producer);
    if (isRemembered(entry[1], clock)) return ProducerTable.from([entry]);
  }
  const all: ProducerRow[] = await c.sql.unsafe(READ_PRODUCERS, [row.id]);
  return ProducerTable.from(all.map(producerOf));
}
