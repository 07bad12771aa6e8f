// What a write does to a stream inside its transaction: create, append, delete, and the resource
// changes (attributes, snapshot, floor). Every change lands in the Batch overlay and in SQL
// together; what it orphans (replaced attributes, a blob nothing refers to, rows below a new
// floor, a deleted stream's rows) is handed to the reclaimer only once the transaction is durable
// (Batch.onDurable).

import { applyAppend, type AppendEffect } from "../../protocol/append";
import { isJsonType } from "../../protocol/content-type";
import { forkOffset, type CreatePlan } from "../../protocol/create";
import { createAppend, initialState, mintIncarnation } from "../../protocol/new-stream";
import { hasExpired, planDelete, type DeleteEffect, type DeletePlan } from "../../protocol/delete";
import { streamKey, type SnapshotMeta, type StreamState } from "../../protocol/state";
import type { StreamRead, StreamView, WriteEffect } from "../../protocol/writes";
import type { AttrsTable } from "./attrs-table";
import type { Batch } from "./batch";
import { lineageOf, type Segment } from "../lineage";
import type { MessageLog } from "./message-log";
import type { Reclaimer } from "./reclaimer";
import type { Statements } from "./rows";
import type { SnapshotBlobs, SnapshotStaging, StagedSnapshot } from "./snapshot-blobs";
import { appendsChange, type SnapshotUpload } from "../store";
import type { StreamDamage } from "./stream-damage";

export interface StreamTxDeps {
  st: Statements;
  log: MessageLog;
  attrs: AttrsTable;
  blobs: SnapshotBlobs;
  reclaimer: Reclaimer<Batch>;
  now: () => number;
  /** A deleted stream's id, so its TTL-touch bookkeeping goes with it. */
  forget: (streamId: number) => void;
  /** Streams on damaged pages, which take no writes (stream-damage.ts). */
  damage: StreamDamage;
}

export class StreamTx {
  private lastIncarnation: number;

  constructor(private readonly d: StreamTxDeps) {
    this.lastIncarnation = Number(d.st.getMeta.get("last_incarnation")?.value ?? 0);
  }

  /**
   * The stream's state in this transaction, reclaiming it first if it has expired. Every write
   * looks its stream up here, so a stream on damaged pages refuses them here.
   */
  live(tx: Batch, key: string): StreamState | undefined {
    const state = tx.get(key);
    if (state && this.d.damage.count > 0) this.d.damage.refuseWrites(state);
    if (!state || !hasExpired(state, this.d.now())) return state;
    const plan = this.delete(tx, state);
    return plan.soft ? tx.get(key) : undefined;
  }

  /** What a plan reads of one stream (protocol/writes.ts), loaded in this transaction, the stream live. */
  view(tx: Batch, read: StreamRead): StreamView {
    const state = this.live(tx, read.key);
    return {
      state,
      attrs: read.attrs && state ? this.attrsOf(state) : null,
      atBoundary: this.atBoundary(tx, state, read.boundary ?? null),
      appendAt: read.fork && state ? this.d.log.appendAt(tx, state, this.lineage(tx, state), forkOffset(read.fork, state)) : null,
      sources: read.chain && state ? this.sources(tx, state) : [],
    };
  }

  /** Applies one effect a plan decided, recording the state it leaves in `applied`. */
  apply(tx: Batch, effect: WriteEffect<SnapshotUpload>, applied: Map<string, StreamState | undefined>): void {
    switch (effect.kind) {
      case "delete":
        return this.applyPlan(tx, effect.plan);
      case "create":
        applied.set(effect.key, this.create(tx, effect.key, effect.plan));
        return;
      case "append": {
        let state = effect.state;
        for (const append of effect.appends) state = this.append(tx, effect.key, state, append);
        tx.changes.push(appendsChange(state, effect.appends));
        applied.set(effect.key, state);
        return;
      }
      case "set-attrs":
        return this.record(applied, this.setAttrs(tx, effect.state, effect.attrs));
      case "publish-snapshot":
        return this.record(applied, this.publishSnapshot(tx, effect.state, (effect.upload as SnapshotStaging).staged(), effect.meta, effect.mentionsBoundary));
      case "drop-upload":
        return this.dropStaged(tx, (effect.upload as SnapshotStaging).blobId);
      case "set-floor":
        return this.record(applied, this.setFloor(tx, effect.state, effect.floor));
    }
  }

  private record(applied: Map<string, StreamState | undefined>, state: StreamState): void {
    applied.set(streamKey(state.bucket, state.name), state);
  }

  /** The stored attributes of a state this transaction sees (its own changes included). */
  attrsOf(state: StreamState): string | null {
    return this.d.attrs.read(state.attrsId);
  }

  /**
   * Whether `offset` is where a committed message of the stream starts, or its tail: messages
   * appended earlier in this same transaction count, as they commit with the decision.
   */
  atBoundary(tx: Batch, state: StreamState | undefined, offset: number | null): boolean {
    return state !== undefined && offset !== null && this.isBoundary(tx, state, offset);
  }

  private isBoundary(tx: Batch, state: StreamState, offset: number): boolean {
    if (offset === state.tail) return true;
    for (const entry of tx.log.entries) if (entry.streamId === state.id && entry.start === offset) return true;
    return this.d.log.isMessageStart(this.lineage(tx, state), offset, isJsonType(state.contentType));
  }

  /** Where the state's bytes are read from, as this transaction sees its sources (lineage.ts). */
  lineage(tx: Batch, state: StreamState): Segment[] {
    return lineageOf(state, (key) => tx.get(key), this.d.log.copied);
  }

  /**
   * Once this transaction is durable, the stream and each of its sources give back what no reader
   * reaches: a floor that rose, or a fork deleted, may free rows all the way up its lineage.
   */
  private reclaimUp(tx: Batch, state: StreamState): void {
    const targets: [number, string][] = [[state.id, streamKey(state.bucket, state.name)]];
    for (const source of this.sources(tx, state)) targets.push([source.id, streamKey(source.bucket, source.name)]);
    tx.onDurable.push(() => {
      for (const [id, key] of targets) this.d.reclaimer.floor(id, key);
    });
  }

  private create(tx: Batch, key: string, plan: CreatePlan): StreamState {
    const now = this.d.now();
    const minted = mintIncarnation(this.lastIncarnation, now);
    this.lastIncarnation = minted.counter;
    this.d.st.setMeta.run("last_incarnation", minted.token);
    if (this.d.st.insertBucket.run(plan.bucket, now).changes > 0) tx.counts.buckets++;
    tx.counts.stream(plan.bucket, 1);
    const fork = plan.fork;
    // Before the fork's row exists: loaded after it, the source would count it twice (hardDelete).
    const source = fork && tx.get(fork.sourceKey)!;
    let state = initialState(plan, minted.token, now);
    state = { ...state, id: this.d.st.insert(state) };
    if (plan.attrs !== null) state = { ...state, attrsId: this.d.attrs.insert(state.id, plan.attrs) };
    if (fork && source) {
      // Fork by reference (spec §7.4, lineage.ts): the fork reads below its offset through its
      // source, whose rows are kept while any fork reads them (trimUnreached). Later appends to
      // the source lie above the fork offset, so they never show in it. Its snapshot blob is shared.
      const below = this.d.log.startFork(tx, state.id, source, this.lineage(tx, source), fork.offset, fork.subBytes, isJsonType(state.contentType));
      state = { ...state, tail: fork.offset + fork.subBytes, messageCount: below + fork.subMessages };
      if (fork.snapshot) this.d.blobs.reference(fork.snapshot.blobId, 1);
      tx.put({ ...source, forkRefs: source.forkRefs + 1 });
    }
    const body = createAppend(plan, state.tail);
    if (body !== null) state = this.append(tx, key, state, body);
    // Whether the row must be written again: the insert wrote all there is of a plain create.
    if (plan.attrs !== null || fork !== null || body !== null) tx.put(state);
    else tx.putWritten(key, state);
    return state;
  }

  /** An accepted append: its log rows, its producer's entry and the stream's next state. */
  private append(tx: Batch, key: string, state: StreamState, effect: AppendEffect): StreamState {
    const { st, log } = this.d;
    const now = this.d.now();
    const next = applyAppend(state, effect, now);
    // A producer let go (evicted, or forgotten and starting again) must stay let go after a crash,
    // so its row changes in this transaction. Start-up would still replay its log rows not yet
    // folded into that row (possible only under an idle limit shorter than the deferral): fold
    // them in first.
    const letGo = effect.evicts ?? (effect.restartsForgotten ? effect.producer!.id : null);
    if (letGo !== null && log.defers(tx, state.id, letGo)) log.materialize(tx);
    if (effect.evicts !== null) st.deleteProducer.run(next.id, effect.evicts);
    const producer = effect.producer && next.producers.get(effect.producer.id);
    if (effect.messages.length > 0) {
      log.write(tx, key, next, effect, now);
      tx.appendedBytes += effect.bytes;
      tx.appendedMessages += effect.messages.length;
    }
    // Nothing in the log carries a close-only request's producer, so its row is written now. Nor
    // may a forgotten producer's restart wait: start-up replay keeps the higher of a stored entry
    // and a log row, and would bring back the forgotten entry.
    if (producer && (effect.messages.length === 0 || effect.restartsForgotten)) {
      st.upsertProducer.run(next.id, effect.producer!.id, producer.epoch, producer.lastSeq, producer.lastStart, producer.lastNext, producer.updatedAtMs);
    }
    // An append's stream-row changes ride on its log rows; a close is written at once.
    if (effect.messages.length > 0 && !effect.close) tx.putDeferred(key, next);
    else tx.put(next, true);
    return next;
  }

  /** Replaces the attributes (null clears them); the replaced row goes once this is durable. */
  private setAttrs(tx: Batch, state: StreamState, attrs: string | null): StreamState {
    const next = { ...state, attrsId: attrs === null ? null : this.d.attrs.insert(state.id, attrs) };
    this.releaseAttrs(tx, state);
    tx.put(next);
    return next;
  }

  /** Makes a staged blob the stream's snapshot; the one it replaces is released. */
  private publishSnapshot(tx: Batch, state: StreamState, staged: StagedSnapshot, meta: Omit<SnapshotMeta, "blobId" | "size">, mentionsBoundary: boolean): StreamState {
    const next = { ...state, snapshot: this.d.blobs.publish(staged, meta, mentionsBoundary) };
    this.releaseSnapshot(tx, state);
    tx.put(next);
    return next;
  }

  /** A staged blob nothing will refer to (a refused or idempotent publish, a failed upload). */
  dropStaged(tx: Batch, blobId: number): void {
    this.d.blobs.drop(blobId);
    tx.onDurable.push(() => this.d.reclaimer.blob(blobId));
  }

  /** Raises the floor; the rows below it that no fork reads are deleted behind it, once this is durable. */
  private setFloor(tx: Batch, state: StreamState, floor: number): StreamState {
    const next = { ...state, retained: floor };
    tx.put(next);
    tx.changes.push({ kind: "retained", state: next });
    this.reclaimUp(tx, next);
    return next;
  }

  /** Deletes the stream as protocol/delete.ts plans it: soft, hard, and up its fork chain. */
  private delete(tx: Batch, state: StreamState): { soft: boolean } {
    // The whole chain is loaded before any row goes: a source not yet in memory is loaded with
    // the forks whose rows refer to it (state-loader.ts), and the deleted ones must be among them.
    const plan = planDelete(state, this.sources(tx, state));
    this.applyPlan(tx, plan);
    return { soft: plan.soft };
  }

  private applyPlan(tx: Batch, plan: DeletePlan): void {
    for (const effect of plan.effects) this.applyDelete(tx, effect);
  }

  /** The stream's fork chain as this transaction sees it, nearest source first. */
  private sources(tx: Batch, state: StreamState): StreamState[] {
    const out: StreamState[] = [];
    for (let s = state; s.fork; ) {
      const source = tx.get(s.fork.sourceKey);
      if (!source || source.id !== s.fork.sourceId) break;
      out.push(source);
      s = source;
    }
    return out;
  }

  private applyDelete(tx: Batch, effect: DeleteEffect): void {
    switch (effect.kind) {
      case "soft-delete":
        return this.softDelete(tx, effect.state, effect.next);
      case "hard-delete":
        return this.hardDelete(tx, effect.state);
      case "release-source":
        tx.put(effect.next);
        return this.reclaimUp(tx, effect.next);
    }
  }

  /** Its rows stay for its forks to read; those no fork reaches go behind it (trimUnreached). */
  private softDelete(tx: Batch, state: StreamState, next: StreamState): void {
    this.d.st.deleteProducers.run(state.id);
    this.releaseAttrs(tx, state);
    this.releaseSnapshot(tx, state);
    tx.put(next);
    tx.counts.stream(state.bucket, -1);
    this.reclaimUp(tx, next);
    tx.changes.push({ kind: "gone", id: state.id, key: streamKey(state.bucket, state.name) });
  }

  private hardDelete(tx: Batch, state: StreamState): void {
    const key = streamKey(state.bucket, state.name);
    this.d.log.deleteStream(tx, state.id);
    this.d.st.deleteProducers.run(state.id);
    this.d.st.deleteStreamRow.run(state.id);
    if (!state.softDeleted) tx.counts.stream(state.bucket, -1);
    this.releaseAttrs(tx, state);
    this.releaseSnapshot(tx, state);
    this.d.forget(state.id);
    tx.remove(key);
    tx.changes.push({ kind: "gone", id: state.id, key });
    tx.onDurable.push(() => this.d.reclaimer.drop(state.id));
  }

  private releaseAttrs(tx: Batch, state: StreamState): void {
    const id = state.attrsId;
    if (id === null) return;
    this.d.attrs.replaced(id);
    tx.onDurable.push(() => this.d.reclaimer.attrs(id));
  }

  /** One stream fewer refers to the state's snapshot blob; the last one lets it be collected. */
  private releaseSnapshot(tx: Batch, state: StreamState): void {
    const blobId = state.snapshot?.blobId;
    if (blobId === undefined) return;
    if (this.d.blobs.reference(blobId, -1) <= 0) tx.onDurable.push(() => this.d.reclaimer.blob(blobId));
  }
}
