// One read per stream per wake, however many live readers the stream has: the readers a commit
// wakes all ask for the stream's state, and those at the same offset for the same bytes, within a
// turn or two of each other. The first to ask reads from the store; the others take its answer.
//
// A shared answer is never older than what a reader may rely on:
// - every change of the stream told to the hub, and every wake of all readers, drops the stream's
//   shared reads first, so a read shared after a wake was started after the change behind it;
// - a reader takes another's state only if that read started after the reader's own last state
//   was in (or is that very read): reads started earlier may predate a commit the reader has seen;
// - a shared read is let go of two turns after it is in: long enough for the readers woken with
//   it (and their read after sending, one turn later), short enough that a reader woken by its
//   heartbeat or one slowed by its client reads afresh, as expiry needs.
// Bytes are keyed by their start, the tail they were read below, the limit and the form, so
// readers at other offsets (catching up) read their own.

import type { StreamState } from "../protocol/state";
import type { ReadSlice, Store } from "../storage/store";
import { encodeSsePayload, type LiveReads, type SsePayload, type SsePayloadMode } from "./sse-payload";

interface Shared<T> {
  /** The hub's clock when the read was started, and when its answer was in (Infinity until then). */
  startedAt: number;
  settledAt: number;
  value: Promise<T>;
}

interface StreamReads {
  state: Shared<StreamState | undefined> | null;
  bytes: Map<string, Shared<unknown>>;
}

export class SharedReads {
  /** Orders reads' starts and ends against each other; it counts events, not time. */
  private clock = 0;
  private readonly streams = new Map<number, StreamReads>();

  constructor(private readonly store: Store) {}

  /** How many streams have a read held now. */
  get held(): number {
    return this.streams.size;
  }

  /** Stream `id` changed: nothing read before may answer a reader woken by the change. */
  changed(id: number): void {
    this.streams.delete(id);
  }

  /** Every reader re-reads (changes may have gone untold). */
  clear(): void {
    this.streams.clear();
  }

  /** The reads of one live reader of stream `id` at `key`, made once the state it starts from is in. */
  reader(key: string, id: number): SharedReader {
    return new SharedReader(this, key, id, ++this.clock);
  }

  /** The stream's state, shared if a read started after `after` (or `last` itself) is still held. */
  state(key: string, id: number, after: number, last: Shared<unknown> | null): Shared<StreamState | undefined> {
    const stream = this.stream(id);
    const held = stream.state;
    if (held && (held === last || held.startedAt > after)) return held;
    const shared = this.start(id, stream, () => this.store.get(key), () => {
      if (stream.state === shared) stream.state = null;
    });
    return (stream.state = shared);
  }

  /** Up to `limitBytes` of stream `id` from `start`, below `state`'s tail; a copy of the shared slice's list, which callers may extend. */
  async readRange(id: number, state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice> {
    const key = `r:${start}:${state.tail}:${limitBytes}:${wholeMessages ? 1 : 0}`;
    const slice = await this.bytes(id, key, () => this.store.readRange(state, start, limitBytes, wholeMessages));
    return { chunks: slice.chunks.slice(), end: slice.end };
  }

  /** An SSE data event's payload, encoded once for every reader at `start` (the frames it is sent in are cached on it). */
  payload(id: number, state: StreamState, start: number, limitBytes: number, mode: SsePayloadMode): Promise<SsePayload> {
    const key = `p:${start}:${state.tail}:${limitBytes}:${mode}`;
    const slice = (s: StreamState, from: number, limit: number, whole: boolean) => this.readRange(id, s, from, limit, whole);
    return this.bytes(id, key, () => encodeSsePayload(slice, state, start, limitBytes, mode));
  }

  private bytes<T>(id: number, key: string, read: () => Promise<T>): Promise<T> {
    const stream = this.stream(id);
    const held = stream.bytes.get(key) as Shared<T> | undefined;
    if (held) return held.value;
    const shared = this.start(id, stream, read, () => {
      if (stream.bytes.get(key) === shared) stream.bytes.delete(key);
    });
    stream.bytes.set(key, shared);
    return shared.value;
  }

  private stream(id: number): StreamReads {
    let stream = this.streams.get(id);
    if (!stream) this.streams.set(id, (stream = { state: null, bytes: new Map() }));
    return stream;
  }

  /** Starts a shared read; `forget` lets go of it, and the stream's entry goes once it holds nothing. */
  private start<T>(id: number, stream: StreamReads, read: () => Promise<T>, forget: () => void): Shared<T> {
    const drop = () => {
      forget();
      if (stream.state === null && stream.bytes.size === 0 && this.streams.get(id) === stream) this.streams.delete(id);
    };
    const shared: Shared<T> = { startedAt: ++this.clock, settledAt: Infinity, value: null! };
    // Stamped before any reader's await resumes, since readers await this very promise.
    shared.value = read().then(
      (value) => {
        shared.settledAt = ++this.clock;
        setImmediate(() => setImmediate(drop));
        return value;
      },
      (error: unknown) => {
        shared.settledAt = ++this.clock;
        drop();
        throw error;
      },
    );
    return shared;
  }
}

/** One live reader's reads: its state never older than the one it last had, its bytes shared with the readers at its offset. */
export class SharedReader implements LiveReads {
  private last: Shared<unknown> | null = null;

  constructor(
    private readonly shared: SharedReads,
    private readonly key: string,
    private readonly id: number,
    /** Everything the reader knew was in by then. */
    private knownAt: number,
  ) {}

  async state(): Promise<StreamState | undefined> {
    const read = this.shared.state(this.key, this.id, this.knownAt, this.last);
    try {
      return await read.value;
    } finally {
      this.last = read;
      this.knownAt = Math.max(this.knownAt, read.settledAt);
    }
  }

  readRange(state: StreamState, start: number, limitBytes: number, wholeMessages: boolean): Promise<ReadSlice> {
    return this.shared.readRange(this.id, state, start, limitBytes, wholeMessages);
  }

  payload(state: StreamState, start: number, limitBytes: number, mode: SsePayloadMode): Promise<SsePayload> {
    return this.shared.payload(this.id, state, start, limitBytes, mode);
  }
}
