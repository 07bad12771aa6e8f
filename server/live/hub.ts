// Per-stream listeners for long-poll and SSE. The store reports each commit; listeners of that
// stream incarnation wake and read committed state, or, for an SSE reader waiting where an append
// starts, are handed the append (Push). Keyed by row id, so a recreated stream at the same path
// never wakes a reader of the old one, except to tell it the old one is gone.

import { isJsonType } from "../protocol/content-type";
import { READ_STEP_BYTES, changedStream, type Store, type ToldChange } from "../storage/store";
import { AppendOffer } from "./append-offer";
import { SharedReads, type SharedReader } from "./shared-reads";
import type { SsePayload, SsePayloadMode } from "./sse-payload";

/**
 * Delivers a committed append to a reader waiting at its stream's tail, there and then, and says
 * whether it did; a reader that cannot take it so (not at the append's start, its last write not
 * yet taken by the client, a payload too large) is woken instead and reads.
 */
export type Push = (offer: AppendOffer) => boolean;

export type Wake = "changed" | "gone" | "timeout" | "shutdown" | "aborted";

export type LiveKind = "sse" | "long-poll";

/**
 * Where a live reader is, for the introspection API (http/reader-routes.ts): its stream's bucket,
 * the offset everything before which it has been sent, and when it began. Kept on the listener
 * and moved on by the reader itself, so a wake costs nothing more.
 */
export interface ReaderPlace {
  bucket: string;
  offset: number;
  startedAtMs: number;
}

/** One live reader as the introspection API lists it. */
export interface LiveReader extends ReaderPlace {
  kind: LiveKind;
  client: string;
}

const NOWHERE: ReaderPlace = { bucket: "", offset: 0, startedAtMs: 0 };
/** Streams whose latest change the hub remembers by its place in the sequence (see `mark`). */
const RECENT_CHANGES = 4096;

/** Why a live read may not start: the server holds as many as it may, or this client does. */
export type LiveRefusal = "server" | "client";

export interface LiveLimits {
  /** Live readers at once, server-wide (spec §8.1). */
  maxReaders: number;
  /** Live readers one client address may hold, so one client cannot take every place. */
  maxPerClient: number;
}

/**
 * A reader's standing interest in one stream, for as long as it reads live. An SSE session holds
 * one for its whole life: an abort listener and a timer per event instead cost much of the event
 * loop's time with many subscribers (docs/design/live-fan-out.md).
 */
export interface Subscription {
  /**
   * The next wake: at once if the stream changed (or was deleted, or the server began shutting
   * down) since the last one, else at the next such event, after `timeoutMs`, or on abort. One
   * wait at a time.
   */
  next(timeoutMs: number): Promise<Wake>;
  /** Stops listening. Once nobody listens, the newest append's bytes are let go of. */
  close(): void;
  /** Everything before `offset` has been sent to this reader. */
  sentTo(offset: number): void;
  /** Appends that come while the reader waits are offered to `push` before it is woken. */
  pushWith(push: Push): void;
}

class Listener implements Subscription {
  private resolve: ((wake: Wake) => void) | null = null;
  /** What happened while the reader was busy; "changed" gives way to anything that ends a read. */
  private missed: Wake | null;
  /** One timer at a time, moved on lazily: it is not re-armed per event, only when it fires early. */
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private dueAt = Infinity;
  private closed = false;
  private push: Push | null = null;
  readonly bucket: string;
  offset: number;
  readonly startedAtMs: number;

  constructor(
    private readonly hub: LiveHub,
    readonly id: number,
    private readonly signal: AbortSignal | undefined,
    initial: Wake | null,
    readonly kind: LiveKind,
    readonly client: string,
    place: ReaderPlace,
  ) {
    this.bucket = place.bucket;
    this.offset = place.offset;
    this.startedAtMs = place.startedAtMs;
    this.missed = initial;
    signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  next(timeoutMs: number): Promise<Wake> {
    if (this.missed !== null) {
      const wake = this.missed;
      if (wake === "changed") this.missed = null;
      return Promise.resolve(wake);
    }
    this.dueAt = Date.now() + timeoutMs;
    if (this.timer === undefined || this.timerAt > this.dueAt) this.arm(timeoutMs);
    return new Promise<Wake>((resolve) => (this.resolve = resolve));
  }

  /** Whether an append offered now could be pushed rather than wake the reader. */
  get takesPushes(): boolean {
    return this.resolve !== null && this.push !== null;
  }

  /** Hands a waiting reader an append; false if it is not waiting or did not take it (then wake it). */
  offer(offer: AppendOffer): boolean {
    return this.takesPushes && this.push!(offer);
  }

  notify(wake: Wake): void {
    const resolve = this.resolve;
    if (resolve !== null) {
      this.resolve = null;
      resolve(wake);
    } else if (this.missed === null || this.missed === "changed") {
      this.missed = wake;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.notify("aborted");
    clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener("abort", this.onAbort);
    this.hub.leave(this);
  }

  sentTo(offset: number): void {
    this.offset = offset;
  }

  pushWith(push: Push): void {
    this.push = push;
  }

  private arm(ms: number): void {
    clearTimeout(this.timer);
    this.timerAt = Date.now() + ms;
    this.timer = setTimeout(this.onTimer, ms);
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    if (this.resolve === null) return;
    const left = this.dueAt - Date.now();
    if (left > 0) this.arm(left);
    else this.notify("timeout");
  };

  private readonly onAbort = (): void => this.notify("aborted");
}

export class LiveHub {
  private readonly listeners = new Map<number, Set<Listener>>();
  /** The newest committed append of each stream that has live readers, and its encoded frames. */
  private readonly latest = new Map<number, AppendOffer>();
  private size = 0;
  private readonly byKind: Record<LiveKind, number> = { sse: 0, "long-poll": 0 };
  private readonly byClient = new Map<string, number>();
  private readonly byBucket = new Map<string, number>();
  private shuttingDown = false;
  private readonly shared: SharedReads;
  /** Streams whose readers a read after another instance's change is being offered to, and whether another such change came since it began. */
  private readonly remoteReads = new Map<number, { again: boolean }>();
  /** Changes dispatched so far: a mark is a place in this sequence. */
  private changeCount = 0;
  /** Each stream's latest change, by its place in the sequence, for the last RECENT_CHANGES streams. */
  private readonly recent = new Map<number, number>();
  /** The latest place forgotten (dropped from `recent`, or a wake-all): after a mark before it, anything may have changed. */
  private forgotten = 0;

  constructor(
    store: Store,
    readonly limits: LiveLimits,
  ) {
    this.shared = new SharedReads(store);
    store.onChange((changes) => this.dispatch(changes));
    store.onMissedChanges?.(() => this.wakeAll());
  }

  get active(): number {
    return this.size;
  }

  activeOf(kind: LiveKind): number {
    return this.byKind[kind];
  }

  /** Live readers of stream `id` now. */
  readersOf(id: number): number {
    return this.listeners.get(id)?.size ?? 0;
  }

  /** Live readers of the streams of `bucket` now. */
  readersIn(bucket: string): number {
    return this.byBucket.get(bucket) ?? 0;
  }

  /** Every bucket with live readers, and how many. */
  bucketsWithReaders(): [string, number][] {
    return [...this.byBucket];
  }

  /** The live readers of stream `id`, as they are now. */
  readers(id: number): LiveReader[] {
    const set = this.listeners.get(id);
    if (!set) return [];
    return [...set].map((l) => ({ kind: l.kind, client: l.client, bucket: l.bucket, offset: l.offset, startedAtMs: l.startedAtMs }));
  }

  /** Whether one more live read from `client` must be refused, and why; null if it may start. */
  refusal(client: string): LiveRefusal | null {
    if (this.size >= this.limits.maxReaders) return "server";
    if ((this.byClient.get(client) ?? 0) >= this.limits.maxPerClient) return "client";
    return null;
  }

  /**
   * The reads of one live reader of stream `id` at `key`, shared with the stream's other readers
   * (shared-reads.ts). Made once the state the reader starts from has been read.
   */
  reads(key: string, id: number): SharedReader {
    return this.shared.reader(key, id);
  }

  /** Listens to stream `id` until closed: an SSE session's standing interest. */
  subscribe(id: number, signal?: AbortSignal, client = "", place = NOWHERE): Subscription {
    return this.listen(id, signal, "sse", client, place);
  }

  private listen(id: number, signal: AbortSignal | undefined, kind: LiveKind, client: string, place: ReaderPlace): Listener {
    const initial: Wake | null = this.shuttingDown ? "shutdown" : signal?.aborted ? "aborted" : null;
    const listener = new Listener(this, id, signal, initial, kind, client, place);
    let set = this.listeners.get(id);
    if (!set) this.listeners.set(id, (set = new Set()));
    set.add(listener);
    this.size++;
    this.byKind[kind]++;
    this.byClient.set(client, (this.byClient.get(client) ?? 0) + 1);
    this.byBucket.set(place.bucket, (this.byBucket.get(place.bucket) ?? 0) + 1);
    return listener;
  }

  /** A place in the hub's sequence of changes, taken before a reader reads a stream's state (see `poll`). */
  mark(): number {
    return this.changeCount;
  }

  /**
   * A long-poll's interest in stream `id`, held across its reads of the state: a change that comes
   * while the reader reads is kept for its next wait. A change after `since` (a mark taken before
   * the reader's first read) but before this call wakes its first wait at once: registering only
   * after that read lost such a change, and the reader waited out its timeout with data to send.
   */
  poll(id: number, since: number, signal?: AbortSignal, client = "", place = NOWHERE): Subscription {
    const listener = this.listen(id, signal, "long-poll", client, place);
    if (this.changedSince(id, since)) listener.notify("changed");
    return listener;
  }

  private changedSince(id: number, since: number): boolean {
    const at = this.recent.get(id);
    return at !== undefined ? at > since : this.forgotten > since;
  }

  /** Wakes every listener for good; live readers then send their final event. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const set of this.listeners.values()) for (const listener of set) listener.notify("shutdown");
  }

  /** Called by a listener that closes. */
  leave(listener: Listener): void {
    const set = this.listeners.get(listener.id);
    if (!set?.delete(listener)) return;
    this.size--;
    this.byKind[listener.kind]--;
    const held = this.byClient.get(listener.client)! - 1;
    if (held === 0) this.byClient.delete(listener.client);
    else this.byClient.set(listener.client, held);
    const inBucket = this.byBucket.get(listener.bucket)! - 1;
    if (inBucket === 0) this.byBucket.delete(listener.bucket);
    else this.byBucket.set(listener.bucket, inBucket);
    if (set.size > 0) return;
    this.listeners.delete(listener.id);
    // Nobody will ask for the newest append, so its bytes are not kept until the stream next
    // changes, if ever.
    this.latest.delete(listener.id);
  }

  /**
   * The live fast path: when a reader woke exactly at the start of the newest append and that
   * append reaches the current tail, its bytes come from the commit itself, not another query,
   * and are encoded once for every such reader.
   */
  payloadAt(id: number, offset: number, tail: number, limitBytes: number, mode: SsePayloadMode): SsePayload | null {
    return this.latest.get(id)?.payloadAt(offset, tail, limitBytes, mode) ?? null;
  }

  /** Wake-ups may have been lost: every reader re-reads, and one whose stream did not change waits on. */
  private wakeAll(): void {
    this.forgotten = ++this.changeCount;
    this.latest.clear();
    this.shared.clear();
    for (const set of this.listeners.values()) for (const listener of set) listener.notify("changed");
  }

  private dispatch(changes: ToldChange[]): void {
    const last = changes.length > 1 ? lastChangeOf(changes) : null;
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i]!;
      const { id } = changedStream(change);
      this.remember(id);
      this.shared.changed(id);
      const set = this.listeners.get(id);
      if (!set) {
        this.latest.delete(id);
        continue;
      }
      if (change.kind === "appended") {
        const offer = new AppendOffer(change);
        this.latest.set(id, offer);
        // Pushed only if the commit changed the stream no further: its retention may have
        // overtaken the append, or a close followed it, which the readers must read.
        if (last === null || last.get(id) === i) {
          for (const listener of set) if (!listener.offer(offer)) listener.notify("changed");
          continue;
        }
      }
      if (change.kind === "touched") {
        this.latest.delete(id);
        for (const listener of set) if (!listener.takesPushes) listener.notify("changed");
        this.offerRemote(id, change.key);
        continue;
      }
      if (change.kind === "gone") this.latest.delete(id);
      const wake = change.kind === "gone" ? "gone" : "changed";
      for (const listener of set) listener.notify(wake);
    }
  }

  /**
   * Another instance changed stream `id`, and its notification says no more: its readers waiting
   * for pushes are served by one read of the state and one of the bytes from each place they are
   * at, offered to them as an append. Notifications that come during the read are served by one
   * more read after it, not one each.
   */
  private offerRemote(id: number, key: string): void {
    const running = this.remoteReads.get(id);
    if (running) {
      running.again = true;
      return;
    }
    const run = { again: true };
    this.remoteReads.set(id, run);
    void (async () => {
      while (run.again) {
        run.again = false;
        const waiting = [...(this.listeners.get(id) ?? [])].filter((listener) => listener.takesPushes);
        if (waiting.length > 0) await this.readAndOffer(id, key, waiting);
      }
      this.remoteReads.delete(id);
    })();
  }

  /**
   * The read behind `offerRemote`. Readers it cannot serve so (a close, a deletion, a retention,
   * more than a read step) wake and read for themselves; readers already at the tail it found,
   * with nothing else changed that they are told of, wait on.
   */
  private async readAndOffer(id: number, key: string, waiting: Listener[]): Promise<void> {
    const reads = this.shared.reader(key, id);
    const at = new Map<number, Listener[]>();
    for (const listener of waiting) {
      const group = at.get(listener.offset);
      if (group) group.push(listener);
      else at.set(listener.offset, [listener]);
    }
    try {
      const read = await reads.state();
      // Gone, or another incarnation at the path: every reader wakes to find out.
      const state = read?.id === id ? read : undefined;
      for (const [offset, group] of at) {
        if (state && offset === state.tail && !state.closed && !state.softDeleted) continue;
        let offer: AppendOffer | null = null;
        if (state && offset < state.tail) {
          // Read as most readers of the stream read (whole messages of JSON), so they share it.
          const slice = await reads.readRange(state, offset, READ_STEP_BYTES, isJsonType(state.contentType));
          if (slice.end === state.tail) offer = new AppendOffer({ kind: "appended", state, start: offset, messages: slice.chunks });
        }
        for (const listener of group) if (offer === null || !listener.offer(offer)) listener.notify("changed");
      }
    } catch {
      for (const listener of waiting) listener.notify("changed");
    }
  }

  private remember(id: number): void {
    this.recent.delete(id);
    this.recent.set(id, ++this.changeCount);
    if (this.recent.size <= RECENT_CHANGES) return;
    const [oldest, at] = this.recent.entries().next().value!;
    this.recent.delete(oldest);
    this.forgotten = at;
  }
}

/** The place of each stream's last change in a commit's changes. */
function lastChangeOf(changes: ToldChange[]): Map<number, number> {
  const last = new Map<number, number>();
  changes.forEach((change, i) => last.set(changedStream(change).id, i));
  return last;
}
