// What a write does to a stream inside its PostgreSQL transaction: lock its row, load what the
// decision needs, and apply the effect the protocol returned (as storage/sqlite/stream-tx.ts does for
// SQLite). Every row a decision reads is locked first (SELECT … FOR UPDATE), so the decision is
// never made against a state another instance could change before this transaction commits.
//
// The rules are the protocol's, shared with the SQLite engine: expiry and deletion
// (protocol/delete.ts), a new stream's first state and its body as an append (new-stream.ts).
// Only incarnation tokens differ: they come from a sequence, so that instances need no shared
// counter row (see schema.ts).

import { applyAppend, producerAfter, type AppendEffect } from "../../protocol/append";
import { isJsonType } from "../../protocol/content-type";
import { forkOffset, type CreatePlan } from "../../protocol/create";
import { hasExpired, planDelete, type DeleteEffect } from "../../protocol/delete";
import { createAppend, initialState } from "../../protocol/new-stream";
import { isRemembered, type ProducerClock } from "../../protocol/producer";
import { ProducerTable } from "../../protocol/producer-table";
import { splitKey, streamKey, type SnapshotMeta, type StreamState } from "../../protocol/state";
import type { StreamRead, StreamView, WriteEffect } from "../../protocol/writes";
import { appendsChange, type SnapshotUpload } from "../store";
import type { TxSql, WriteEffects } from "./group-commit";
import { appendAt, isMessageStart, messagesBelow, segmentsOf } from "./lineage";
import { producerOf, STREAM_COLUMNS, stateOf, type ProducerRow, type StreamRow } from "./rows";
import type { PgUpload } from "./snapshots";

export interface WriteContext {
  now: () => number;
  clock: () => ProducerClock;
  /** Rows no reader reaches any more, reclaimed up the stream's lineage once the transaction has committed. */
  reclaim: (streamId: number) => void;
  /** A blob whose last reference went. */
  collectBlob: (blobId: number) => void;
}

export class StreamWrites {
  constructor(
    readonly sql: TxSql,
    readonly fx: WriteEffects,
    private readonly c: WriteContext,
  ) {}

  /** The stream's row, locked for this transaction; producers not loaded. */
  async lock(key: string): Promise<StreamState | undefined> {
    const { bucket, name } = splitKey(key);
    const rows: StreamRow[] = await this.sql.unsafe(`SELECT ${STREAM_COLUMNS} FROM streams WHERE bucket = $1 AND name = $2 FOR UPDATE`, [bucket, name]);
    return rows[0] && stateOf(rows[0]);
  }

  private async lockId(id: number): Promise<StreamState | undefined> {
    const rows: StreamRow[] = await this.sql.unsafe(`SELECT ${STREAM_COLUMNS} FROM streams WHERE id = $1 FOR UPDATE`, [id]);
    return rows[0] && stateOf(rows[0]);
  }

  /** The locked state, reclaiming it first if it has expired (spec §7.1). */
  async live(key: string): Promise<StreamState | undefined> {
    const state = await this.lock(key);
    if (!state || !hasExpired(state, this.c.now())) return state;
    await this.delete(state);
    return state.forkRefs > 0 ? this.lock(key) : undefined;
  }

  /** What a plan reads of one stream (protocol/writes.ts), its row locked and the stream live. */
  async view(read: StreamRead): Promise<StreamView> {
    const live = await this.live(read.key);
    const state = live && read.producer ? await this.withProducers(live, read.producer) : live;
    const forkAt = read.fork && state ? forkOffset(read.fork, state) : undefined;
    return {
      state,
      attrs: read.attrs && state && state.attrsId !== null ? await this.attrsOf(state) : null,
      atBoundary: state !== undefined && read.boundary != null ? await this.isBoundary(state, read.boundary) : false,
      appendAt: state && forkAt !== undefined && forkAt <= state.tail ? await this.appendAt(state, forkAt) : null,
      sources: read.chain && state ? await this.sources(state) : [],
    };
  }

  /** Applies one effect a plan decided, recording the state it leaves in `applied`. */
  async apply(effect: WriteEffect<SnapshotUpload>, applied: Map<string, StreamState | undefined>): Promise<void> {
    const record = (state: StreamState) => void applied.set(streamKey(state.bucket, state.name), state);
    switch (effect.kind) {
      case "delete":
        for (const step of effect.plan.effects) await this.applyDelete(step);
        return;
      case "create":
        applied.set(effect.key, await this.create(effect.plan));
        return;
      case "append": {
        let state = effect.state;
        for (const append of effect.appends) state = await this.append(state, append);
        this.fx.changes.push(appendsChange(state, effect.appends));
        applied.set(effect.key, state);
        return;
      }
      case "set-attrs":
        return record(await this.setAttrs(effect.state, effect.attrs));
      case "publish-snapshot":
        return record(await this.publishSnapshot(effect.state, await (effect.upload as PgUpload).id(), effect.meta, effect.mentionsBoundary));
      case "drop-upload": {
        const blobId = await (effect.upload as PgUpload).id();
        this.fx.afterCommit.push(() => this.c.collectBlob(blobId));
        return;
      }
      case "set-floor":
        return record(await this.setFloor(effect.state, effect.floor));
    }
  }

  /**
   * The state with the producers a decision about `producerId` needs: that one alone when the
   * stream remembers it, else the whole table (admitting a new producer looks at all of them).
   */
  async withProducers(state: StreamState, producerId: string | null): Promise<StreamState> {
    if (producerId === null) return state;
    const one: ProducerRow[] = await this.sql`SELECT * FROM producers WHERE stream_id = ${state.id} AND producer_id = ${producerId}`;
    if (one[0]) {
      const entry = producerOf(one[0]);
      if (isRemembered(entry[1], this.c.clock())) return { ...state, producers: ProducerTable.from([entry]) };
    }
    const all: ProducerRow[] = await this.sql`SELECT * FROM producers WHERE stream_id = ${state.id}`;
    return { ...state, producers: ProducerTable.from(all.map(producerOf)) };
  }

  attrsOf = async (state: StreamState): Promise<string | null> => {
    const [row]: { attrs: string | null }[] = await this.sql`SELECT attrs FROM streams WHERE id = ${state.id}`;
    return row?.attrs ?? null;
  };

  isBoundary(state: StreamState, offset: number): Promise<boolean> {
    return isMessageStart(this.sql, state, offset);
  }

  appendAt(state: StreamState, offset: number): Promise<number[] | null> {
    return appendAt(this.sql, state, offset);
  }

  async create(plan: CreatePlan): Promise<StreamState> {
    const now = this.c.now();
    const [{ n }] = (await this.sql`SELECT nextval('ursa_incarnations') AS n`) as [{ n: string }];
    await this.sql`INSERT INTO buckets (bucket_id, created_at_ms) VALUES (${plan.bucket}, ${now}) ON CONFLICT (bucket_id) DO NOTHING`;
    await this.sql`UPDATE buckets SET stream_count = stream_count + 1 WHERE bucket_id = ${plan.bucket}`;
    const fork = plan.fork;
    const [{ id }] = (await this.sql`INSERT INTO streams
      (bucket, name, incarnation, content_type, last_seq, ttl_s, expires_at_ms, touched_at_ms, created_at_ms,
       fork_source_key, fork_source_id, fork_offset, fork_sub_offset, attrs, retained, snapshot)
      VALUES (${plan.bucket}, ${plan.name}, ${n}, ${plan.contentType}, ${plan.streamSeq}, ${plan.lifetime.ttlSeconds}, ${plan.lifetime.expiresAtMs},
       ${now}, ${now}, ${fork?.sourceKey ?? null}, ${fork?.sourceId ?? null}, ${fork?.offset ?? null}, ${fork?.subOffset ?? null},
       ${plan.attrs}, ${fork?.retained ?? 0}, ${fork?.snapshot ?? null})
      RETURNING id`) as [{ id: string }];
    let state: StreamState = { ...initialState(plan, n, now), id: Number(id), attrsId: plan.attrs === null ? null : 0 };
    if (fork) {
      // Fork by reference (spec §7.4): below its offset the fork reads its source's rows, which
      // are kept while it does. Only the part of the append at the offset that the sub-offset
      // takes is stored again, as the fork's own first rows.
      const source = (await this.lockId(fork.sourceId))!;
      const below = await messagesBelow(this.sql, source, fork.offset);
      if (fork.subBytes > 0) await this.copyPrefix(state.id, source, fork.offset, fork.subBytes, isJsonType(plan.contentType));
      state = { ...state, tail: fork.offset + fork.subBytes, messageCount: below + fork.subMessages };
      if (fork.snapshot) await this.sql`UPDATE snapshot_blobs SET refs = refs + 1 WHERE id = ${fork.snapshot.blobId}`;
      await this.sql`UPDATE streams SET fork_refs = fork_refs + 1 WHERE id = ${source.id}`;
    }
    const body = createAppend(plan, state.tail);
    if (body) state = await this.append(state, body);
    else await this.writeRow(state);
    return state;
  }

  /** The first `bytes` of the append at `offset` of the source, as the fork's own rows. */
  private async copyPrefix(forkId: number, source: StreamState, offset: number, bytes: number, json: boolean): Promise<void> {
    const seg = (await segmentsOf(this.sql, source)).find((s) => offset >= s.lo && offset < s.hi)!;
    const rows: { start: string; data: Uint8Array }[] = await this.sql`SELECT start, data FROM msgs WHERE stream_id = ${seg.id} AND append_start = ${offset} ORDER BY start`;
    let left = bytes;
    for (const row of rows) {
      if (left <= 0) break;
      const data = new Uint8Array(row.data);
      const piece = json ? data : data.subarray(0, Math.min(left, data.length));
      await this.sql`INSERT INTO msgs (stream_id, start, append_start, data) VALUES (${forkId}, ${Number(row.start)}, ${offset}, ${piece})`;
      left -= piece.length;
    }
  }

  /** An accepted append: its rows, its producer's entry and the stream's next state. */
  async append(state: StreamState, effect: AppendEffect): Promise<StreamState> {
    const now = this.c.now();
    const next = applyAppend(state, effect, now);
    if (effect.evicts !== null) await this.sql`DELETE FROM producers WHERE stream_id = ${state.id} AND producer_id = ${effect.evicts}`;
    const producer = effect.producer && producerAfter({ ...effect, producer: effect.producer }, now);
    if (producer) {
      await this.sql`INSERT INTO producers (stream_id, producer_id, epoch, last_seq, last_start, last_next, updated_at_ms)
        VALUES (${state.id}, ${effect.producer!.id}, ${producer.epoch}, ${producer.lastSeq}, ${producer.lastStart}, ${producer.lastNext}, ${producer.updatedAtMs})
        ON CONFLICT (stream_id, producer_id) DO UPDATE SET epoch = EXCLUDED.epoch, last_seq = EXCLUDED.last_seq,
          last_start = EXCLUDED.last_start, last_next = EXCLUDED.last_next, updated_at_ms = EXCLUDED.updated_at_ms`;
    }
    this.fx.appendedBytes += effect.bytes;
    this.fx.appendedMessages += effect.messages.length;
    await this.writeRow(next, effect.start, effect.messages, now);
    return next;
  }

  /**
   * The stream row as the state says (everything but the attributes, which setAttrs writes), and
   * in the same statement (one round trip) the messages of an append starting at `start`.
   */
  async writeRow(s: StreamState, start = 0, messages: Uint8Array[] = [], atMs = 0): Promise<void> {
    const starts: number[] = [];
    for (const m of messages) {
      starts.push(start);
      start += m.length;
    }
    const ids = starts.map(() => s.id);
    const appendStarts = starts.map(() => starts[0]!);
    const times = starts.map(() => atMs);
    await this.sql`WITH appended AS (INSERT INTO msgs (stream_id, start, append_start, at_ms, data)
        SELECT * FROM unnest(${ids}::bigint[], ${starts}::bigint[], ${appendStarts}::bigint[], ${times}::bigint[], ${messages}::bytea[]))
      UPDATE streams SET tail = ${s.tail}, message_count = ${s.messageCount}, closed = ${s.closed},
      closed_by = ${s.closedBy}, last_seq = ${s.lastSeq}, touched_at_ms = ${s.touchedAtMs}, last_write_at_ms = ${s.lastWriteAtMs},
      soft_deleted = ${s.softDeleted}, retained = ${s.retained}, snapshot = ${s.snapshot} WHERE id = ${s.id}`;
  }

  async setAttrs(state: StreamState, attrs: string | null): Promise<StreamState> {
    const [row]: { v: string }[] = await this.sql`UPDATE streams SET attrs = ${attrs}, attrs_version = attrs_version + 1 WHERE id = ${state.id} RETURNING attrs_version AS v`;
    return { ...state, attrsId: attrs === null ? null : Number(row!.v) };
  }

  async publishSnapshot(state: StreamState, blobId: number, meta: Omit<SnapshotMeta, "blobId" | "size">, mentionsBoundary: boolean): Promise<StreamState> {
    const [row]: { size: string }[] = await this.sql`UPDATE snapshot_blobs SET published = true, refs = refs + 1, mentions_boundary = ${mentionsBoundary}
      WHERE id = ${blobId} RETURNING size`;
    const next = { ...state, snapshot: { blobId, ...meta, size: Number(row!.size) } };
    await this.releaseSnapshot(state);
    await this.writeRow(next);
    return next;
  }

  async setFloor(state: StreamState, floor: number): Promise<StreamState> {
    const next = { ...state, retained: floor };
    await this.writeRow(next);
    this.fx.changes.push({ kind: "retained", state: next });
    this.reclaimUp(next);
    return next;
  }

  /** Deletes the stream as protocol/delete.ts plans it: soft, hard, and up its fork chain. */
  async delete(state: StreamState): Promise<{ soft: boolean }> {
    const plan = planDelete(state, await this.sources(state));
    for (const effect of plan.effects) await this.applyDelete(effect);
    return { soft: plan.soft };
  }

  /** The stream's fork chain, each source locked, nearest first. */
  private async sources(state: StreamState): Promise<StreamState[]> {
    const out: StreamState[] = [];
    for (let s = state; s.fork; ) {
      const source = await this.lockId(s.fork.sourceId);
      if (!source) break;
      out.push(source);
      s = source;
    }
    return out;
  }

  private async applyDelete(effect: DeleteEffect): Promise<void> {
    switch (effect.kind) {
      case "soft-delete":
        return this.softDelete(effect.state, effect.next);
      case "hard-delete":
        return this.hardDelete(effect.state);
      case "release-source":
        await this.sql`UPDATE streams SET fork_refs = ${effect.next.forkRefs} WHERE id = ${effect.next.id}`;
        return this.reclaimUp(effect.next);
    }
  }

  /** Its rows stay for its forks to read; those no fork reaches are reclaimed behind it. */
  private async softDelete(state: StreamState, next: StreamState): Promise<void> {
    await this.sql`DELETE FROM producers WHERE stream_id = ${state.id}`;
    await this.releaseSnapshot(state);
    await this.sql`UPDATE streams SET soft_deleted = true, attrs = NULL, snapshot = NULL WHERE id = ${state.id}`;
    await this.sql`UPDATE buckets SET stream_count = stream_count - 1 WHERE bucket_id = ${state.bucket}`;
    this.reclaimUp(next);
    this.fx.changes.push({ kind: "gone", id: state.id, key: streamKey(state.bucket, state.name) });
  }

  private async hardDelete(state: StreamState): Promise<void> {
    await this.sql`DELETE FROM msgs WHERE stream_id = ${state.id}`;
    await this.sql`WITH touch AS (DELETE FROM stream_touches WHERE stream_id = ${state.id}) DELETE FROM producers WHERE stream_id = ${state.id}`;
    await this.sql`DELETE FROM streams WHERE id = ${state.id}`;
    if (!state.softDeleted) await this.sql`UPDATE buckets SET stream_count = stream_count - 1 WHERE bucket_id = ${state.bucket}`;
    await this.releaseSnapshot(state);
    this.fx.changes.push({ kind: "gone", id: state.id, key: streamKey(state.bucket, state.name) });
  }

  /** After the commit, the stream and each source up its lineage give back what no one reaches. */
  private reclaimUp(state: StreamState): void {
    this.fx.afterCommit.push(() => this.c.reclaim(state.id));
  }

  /** One stream fewer shows the state's snapshot; the last one lets its blob be collected. */
  private async releaseSnapshot(state: StreamState): Promise<void> {
    const blobId = state.snapshot?.blobId;
    if (blobId === undefined) return;
    const [row]: { refs: string }[] = await this.sql`UPDATE snapshot_blobs SET refs = refs - 1 WHERE id = ${blobId} RETURNING refs`;
    if (row && Number(row.refs) <= 0) this.fx.afterCommit.push(() => this.c.collectBlob(blobId));
  }
}
