// UrsaStream: one stream URL, every request built on fetch, and the stream's incarnation kept
// and sent back. Ursula v0.9.0, Conditional Writes, "Guarding against a recreated stream": once a
// client knows the token it sends it on "any later request: appends, reads (including long-poll
// and SSE), HEAD, DELETE, a PUT of an existing stream, bootstrap, snapshot publish and read,
// retention", so a stream recreated at the same URL answers 412 (IncarnationMismatch) instead of
// quietly mixing two streams' offsets and state.

import { createParser, type EventSourceMessage } from "eventsource-parser";
import { errorFromResponse, UrsaError } from "./errors.js";
import { HEADER, padSeq, STREAM_START } from "./headers.js";
import { parseMultipart } from "./multipart.js";

/** The fetch this package calls: the global one, or any function of the same shape. */
export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** What every client object takes: a bearer token and a fetch to send requests with. */
export interface ClientOptions {
  /** Sent as `Authorization: Bearer <token>` on every request. */
  token?: string;
  /** Defaults to the global fetch; pass one to add logging, retries or a test double. */
  fetch?: FetchLike;
  /** Abort a request that has not answered by then (live reads excepted). No limit by default. */
  requestTimeoutMs?: number;
}

export interface UrsaStreamOptions extends ClientOptions {
  /** A token kept from earlier, so even the first request is checked against it. */
  incarnation?: string;
}

/**
 * A request or message body. Strings, bytes and Blobs are sent as they are (a string on a JSON
 * stream must already be JSON text); any other value is sent as JSON.
 */
export type Body = string | Uint8Array | ArrayBuffer | Blob | unknown;

export interface CreateOptions {
  /** Default application/octet-stream, as the server's. */
  contentType?: string;
  ttlSeconds?: number;
  expiresAt?: string;
  /** Create the stream already closed (the body is then its whole content). */
  closed?: boolean;
  body?: Body;
}

export interface Created {
  /** true: 201, a new stream (or a new incarnation). false: 200, it was there with this configuration. */
  created: boolean;
  incarnation: string | null;
  nextOffset: string | null;
}

export interface Producer {
  id: string;
  epoch: number;
  seq: number;
}

export interface AppendOptions {
  /** Stream-Seq: a number is zero-padded to 20 digits; a string is sent as it is. */
  streamSeq?: number | string;
  /** Producer-Id, Producer-Epoch and Producer-Seq, for retries that must not write twice. */
  producer?: Producer;
  /** Defaults to the type this stream was created or found with, else by the body's kind. */
  contentType?: string;
  /** Close the stream with this append (Stream-Closed: true). */
  close?: boolean;
  signal?: AbortSignal;
}

export interface Appended {
  /** The new tail. A repeat of an older producer write carries none (null). */
  nextOffset: string | null;
  incarnation: string | null;
  /** A producer retry of a write already accepted (204): nothing was written this time. */
  duplicate: boolean;
}

export type LiveMode = false | "long-poll" | "sse";

export interface ReadOptions {
  /** Where to start: "-1" (the start), "now" (the tail), or an offset from an earlier chunk. */
  offset?: string;
  /** false: stop at the tail. "long-poll" or "sse": keep following until closed or aborted. */
  live?: LiveMode;
  /** Cap each response (max_bytes). The reader still goes on to the tail. */
  maxBytes?: number;
  /** How long one long-poll waits (timeout_ms); the server's default otherwise. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface ReadChunk {
  /** On an application/json stream: the messages, parsed. */
  messages?: unknown[];
  /** On any other stream: the bytes. */
  bytes?: Uint8Array;
  /** Where the next read continues. */
  nextOffset: string;
  /** The chunk reaches the tail (as it was when the server answered). */
  upToDate: boolean;
  /** The stream is closed and this chunk reaches its end. */
  closed: boolean;
}

export interface TailRead {
  /** Every message read, oldest first (JSON streams; see readToTail). */
  messages: unknown[];
  nextOffset: string;
  incarnation: string | null;
}

export interface StreamInfo {
  contentType: string | null;
  nextOffset: string | null;
  closed: boolean;
  incarnation: string | null;
  snapshotOffset: string | null;
  snapshotDigest: string | null;
  retainedOffset: string | null;
}

export interface Bootstrap {
  /** null when the stream has no snapshot (Stream-Snapshot-Offset: -1). */
  snapshot: { offset: string; digest: string; contentType: string; bytes: Uint8Array; value?: unknown } | null;
  /** The messages after the snapshot, in order: parsed JSON on a JSON stream, else bytes. */
  messages: unknown[];
  /** Where ordinary reads continue. */
  nextOffset: string;
  /** false when the answer stopped short (it carries at most 8 MiB): read on from nextOffset. */
  upToDate: boolean;
  incarnation: string | null;
}

const isJson = (contentType: string | null) => contentType !== null && /^application\/json\s*(;|$)/i.test(contentType);

function encodeBody(body: Body): { body: BodyInit; raw: boolean } {
  if (typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer || body instanceof Blob) return { body: body as BodyInit, raw: true };
  return { body: JSON.stringify(body), raw: false };
}

function base64Bytes(text: string): Uint8Array {
  const binary = atob(text.replace(/\s+/g, ""));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

interface SendInit {
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: BodyInit;
  signal?: AbortSignal;
  /** A live read: no request timeout. */
  live?: boolean;
}

export class UrsaStream {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly doFetch: FetchLike;
  private readonly requestTimeoutMs: number | undefined;
  private known: string | null;
  private type: string | null = null;

  constructor(url: string, options: UrsaStreamOptions = {}) {
    this.url = url.replace(/\/+$/, "");
    this.token = options.token;
    this.doFetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.known = options.incarnation ?? null;
  }

  /**
   * The Stream-Incarnation token last seen, null until a response named one. Ursula v0.9.0,
   * Conditional Writes: "Keep it with whatever you derived from the stream."
   */
  get incarnation(): string | null {
    return this.known;
  }

  /** The stream's content type, once create or head has seen it. */
  get contentType(): string | null {
    return this.type;
  }

  /**
   * After an IncarnationMismatch: forget the old incarnation and follow `incarnation` (the error's),
   * or none. Ursula v0.9.0, Conditional Writes: "Start over from the new stream: discard derived
   * state, read from its start or bootstrap, and keep the new token." The derived state is yours
   * to discard; this only moves the token.
   */
  startOver(incarnation: string | null = null): void {
    this.known = incarnation;
  }

  /**
   * PUT: create the stream, or find it with the same configuration. Sends no Stream-Seq, ever.
   * Ursula v0.9.0, Conditional Writes, prefix-count step 1: "Create the stream with a PUT without
   * Stream-Seq, so no value is stored and the first commit's 0 is accepted; a PUT that seeds a
   * value can make the first commit answer 409 on every retry." Prevents a seeding PUT.
   * With a known incarnation the PUT is checked too: for a missing stream it answers 412 and
   * creates nothing.
   */
  async create(options: CreateOptions = {}): Promise<Created> {
    const contentType = options.contentType ?? "application/octet-stream";
    const headers: Record<string, string> = { [HEADER.contentType]: contentType };
    if (options.ttlSeconds !== undefined) headers[HEADER.ttl] = String(options.ttlSeconds);
    if (options.expiresAt !== undefined) headers[HEADER.expiresAt] = options.expiresAt;
    if (options.closed) headers[HEADER.closed] = "true";
    const res = await this.send("PUT", "", { headers, body: options.body === undefined ? undefined : encodeBody(options.body).body });
    await res.body?.cancel();
    this.type = res.headers.get(HEADER.contentType) ?? contentType;
    return { created: res.status === 201, incarnation: this.known, nextOffset: res.headers.get(HEADER.nextOffset) };
  }

  /**
   * POST one append. With `streamSeq` it is a compare-and-set (Ursula v0.9.0, Conditional Writes,
   * "How Stream-Seq is checked"): a number is zero-padded to 20 digits because "the comparison is
   * bytewise, not numeric". A refusal throws: StreamSeqConflict (409 with Stream-Last-Seq),
   * ProducerFenced (403), StreamClosed, ProducerSeqConflict, IncarnationMismatch (412), …
   * A JSON array on a JSON stream commits its elements together, one message each.
   */
  async append(body: Body, options: AppendOptions = {}): Promise<Appended> {
    const encoded = encodeBody(body);
    const headers: Record<string, string> = {
      [HEADER.contentType]: options.contentType ?? this.type ?? (encoded.raw ? "application/octet-stream" : "application/json"),
    };
    if (options.streamSeq !== undefined) headers[HEADER.seq] = typeof options.streamSeq === "number" ? padSeq(options.streamSeq) : options.streamSeq;
    if (options.producer) {
      headers[HEADER.producerId] = options.producer.id;
      headers[HEADER.producerEpoch] = String(options.producer.epoch);
      headers[HEADER.producerSeq] = String(options.producer.seq);
    }
    if (options.close) headers[HEADER.closed] = "true";
    const res = await this.send("POST", "", { headers, body: encoded.body, signal: options.signal });
    await res.body?.cancel();
    return {
      nextOffset: res.headers.get(HEADER.nextOffset),
      incarnation: this.known,
      duplicate: options.producer !== undefined && res.status === 204,
    };
  }

  /**
   * POST Stream-Closed: true with no body: no more appends. Later appends answer 409 with
   * Stream-Closed (StreamClosed), which Ursula v0.9.0, Conditional Writes keeps apart from a
   * Stream-Seq 409: "A closed stream answers 409 with Stream-Closed: true".
   */
  async close(): Promise<void> {
    const res = await this.send("POST", "", { headers: { [HEADER.closed]: "true" } });
    await res.body?.cancel();
  }

  /**
   * HEAD: the stream's metadata, checked against the known incarnation (Ursula v0.9.0,
   * Conditional Writes, "Guarding against a recreated stream": HEAD is among the requests that
   * carry the token), so metadata of a recreated stream is never taken for the old one's.
   */
  async head(): Promise<StreamInfo> {
    const res = await this.send("HEAD", "", {});
    const h = res.headers;
    this.type = h.get(HEADER.contentType) ?? this.type;
    return {
      contentType: h.get(HEADER.contentType),
      nextOffset: h.get(HEADER.nextOffset),
      closed: h.get(HEADER.closed) === "true",
      incarnation: this.known,
      snapshotOffset: h.get(HEADER.snapshotOffset),
      snapshotDigest: h.get(HEADER.snapshotDigest),
      retainedOffset: h.get(HEADER.retainedOffset),
    };
  }

  /**
   * DELETE, checked against the known incarnation, so it never deletes a stream recreated since
   * (Ursula v0.9.0, Conditional Writes: DELETE carries the token too). The token is forgotten with
   * the stream: "a DELETE" is the one success that carries none.
   */
  async delete(): Promise<void> {
    const res = await this.send("DELETE", "", {});
    await res.body?.cancel();
    this.known = null;
  }

  /**
   * Reads from `offset` (default -1), one chunk per response, with consistency=leader. With
   * `live: false` it ends at the tail: only Stream-Up-To-Date: true ends it, never a short or
   * empty body, because "the read must end at the tail" (Ursula v0.9.0, Conditional Writes,
   * prefix-count); so a read cut short by max_bytes can't be mistaken for the whole log. With
   * "long-poll" or "sse" it follows the stream until it is closed or `signal` aborts. Every
   * request carries the known incarnation: a recreated stream throws IncarnationMismatch.
   */
  async *read(options: ReadOptions = {}): AsyncGenerator<ReadChunk, void, undefined> {
    const live = options.live ?? false;
    if (live === "sse") {
      yield* this.readSse(options.offset ?? STREAM_START, options);
      return;
    }
    let offset = options.offset ?? STREAM_START;
    let caughtUp = false;
    for (;;) {
      const query: Record<string, string> = { offset, consistency: "leader" };
      if (options.maxBytes !== undefined) query.max_bytes = String(options.maxBytes);
      const polling = caughtUp && live === "long-poll";
      if (polling) {
        query.live = "long-poll";
        if (options.timeoutMs !== undefined) query.timeout_ms = String(options.timeoutMs);
      }
      const res = await this.send("GET", "", { query, signal: options.signal, live: polling });
      const nextOffset = res.headers.get(HEADER.nextOffset) ?? offset;
      const closed = res.headers.get(HEADER.closed) === "true";
      if (res.status === 204) {
        // A long-poll that timed out at the tail, or the tail of a closed stream.
        offset = nextOffset;
        if (closed) return;
        continue;
      }
      const chunk: ReadChunk = { nextOffset, upToDate: res.headers.get(HEADER.upToDate) === "true", closed };
      if (isJson(res.headers.get(HEADER.contentType))) {
        const body: unknown = JSON.parse(await res.text());
        if (!Array.isArray(body)) throw new UrsaError(`GET ${this.url}: a JSON read answered something other than an array`, res.status, "UNEXPECTED_BODY", res.headers);
        chunk.messages = body;
      } else {
        chunk.bytes = new Uint8Array(await res.arrayBuffer());
      }
      yield chunk;
      if (chunk.closed) return;
      if (chunk.upToDate) {
        if (live === false) return;
        caughtUp = true;
      } else if (nextOffset === offset) {
        throw new UrsaError(`GET ${this.url}: not up to date, yet Stream-Next-Offset did not move`, res.status, "NO_PROGRESS", res.headers);
      }
      offset = nextOffset;
    }
  }

  /**
   * Ursula v0.9.0, Conditional Writes, prefix-count step 3: "Read with consistency=leader,
   * continuing from Stream-Next-Offset, until a response carries Stream-Up-To-Date: true."
   * Collects the messages of an application/json stream from `from` to the tail. Prevents a
   * count taken from a read cut short by max_bytes, which "can stop inside a commit".
   */
  async readToTail(from: string = STREAM_START, options: { maxBytes?: number; signal?: AbortSignal } = {}): Promise<TailRead> {
    const messages: unknown[] = [];
    let nextOffset = from;
    for await (const chunk of this.read({ offset: from, live: false, ...options })) {
      if (!chunk.messages) throw new UrsaError(`GET ${this.url}: readToTail reads application/json streams`, 0, "NOT_JSON");
      messages.push(...chunk.messages);
      nextOffset = chunk.nextOffset;
    }
    return { messages, nextOffset, incarnation: this.known };
  }

  /**
   * GET {stream}/bootstrap: the snapshot and the messages after it, in one answer. A reader whose
   * offset=-1 read answers 410 (retention trimmed the start) recovers here: Ursula v0.9.0,
   * Conditional Writes, "Start over from the new stream: discard derived state, read from its
   * start or bootstrap". Carries the token like every request, so it never bootstraps a stranger.
   */
  async bootstrap(): Promise<Bootstrap> {
    const res = await this.send("GET", "/bootstrap", {});
    const boundary = /boundary=("?)([^";\s]+)\1/.exec(res.headers.get(HEADER.contentType) ?? "")?.[2];
    if (!boundary) throw new UrsaError(`GET ${this.url}/bootstrap: no multipart boundary`, res.status, "UNEXPECTED_BODY", res.headers);
    const [first, ...rest] = parseMultipart(new Uint8Array(await res.arrayBuffer()), boundary);
    if (!first) throw new UrsaError(`GET ${this.url}/bootstrap: no snapshot part`, res.status, "UNEXPECTED_BODY", res.headers);
    const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    const offset = res.headers.get(HEADER.snapshotOffset);
    return {
      snapshot:
        offset === null || offset === STREAM_START
          ? null
          : {
              offset,
              digest: res.headers.get(HEADER.snapshotDigest) ?? "",
              contentType: first.contentType,
              bytes: first.body,
              value: isJson(first.contentType) ? JSON.parse(text(first.body)) : undefined,
            },
      messages: rest.map((p) => (isJson(p.contentType) ? JSON.parse(text(p.body)) : p.body)),
      nextOffset: res.headers.get(HEADER.nextOffset) ?? STREAM_START,
      upToDate: res.headers.get(HEADER.upToDate) === "true",
      incarnation: this.known,
    };
  }

  /**
   * PUT {stream}/snapshot/{offset}: publish a snapshot of the state at `offset`. With `match` (the
   * digest of the snapshot the state was derived from) it replaces only that one. On a
   * prefix-count stream put the event count in it (compact does): Ursula v0.9.0, Conditional
   * Writes, prefix-count step 3, "keep the event count in every snapshot you publish".
   */
  async publishSnapshot(offset: string, body: Body, options: { contentType?: string; match?: string } = {}): Promise<{ offset: string; digest: string }> {
    const encoded = encodeBody(body);
    const headers: Record<string, string> = { [HEADER.contentType]: options.contentType ?? (encoded.raw ? "application/octet-stream" : "application/json") };
    if (options.match !== undefined) headers[HEADER.snapshotMatch] = options.match;
    const res = await this.send("PUT", `/snapshot/${encodeURIComponent(offset)}`, { headers, body: encoded.body });
    await res.body?.cancel();
    return { offset: res.headers.get(HEADER.snapshotOffset) ?? offset, digest: res.headers.get(HEADER.snapshotDigest) ?? "" };
  }

  /**
   * PUT {stream}/retention/{offset}: drop everything before `offset`, which may not pass the
   * snapshot. From then on offset=-1 answers 410. Ursula v0.9.0, Conditional Writes, prefix-count
   * step 3: on a prefix-count stream, only after a snapshot that keeps the event count (compact).
   */
  async retain(offset: string): Promise<{ retainedOffset: string }> {
    const res = await this.send("PUT", `/retention/${encodeURIComponent(offset)}`, {});
    await res.body?.cancel();
    return { retainedOffset: res.headers.get(HEADER.retainedOffset) ?? offset };
  }

  /** One request: token, incarnation and timeout added; any non-2xx thrown as its UrsaError. */
  private async send(method: string, suffix: string, init: SendInit): Promise<Response> {
    const query = init.query ? `?${new URLSearchParams(init.query)}` : "";
    const target = `${this.url}${suffix}${query}`;
    const headers: Record<string, string> = { ...init.headers };
    if (this.token !== undefined) headers[HEADER.authorization] = `Bearer ${this.token}`;
    if (this.known !== null) headers[HEADER.incarnation] = this.known;
    const signal = init.signal ?? (init.live || this.requestTimeoutMs === undefined ? undefined : AbortSignal.timeout(this.requestTimeoutMs));
    const res = await this.doFetch(target, { method, headers, body: init.body, signal });
    if (!res.ok) throw await errorFromResponse(`${method} ${target}`, res);
    const incarnation = res.headers.get(HEADER.incarnation);
    if (incarnation !== null) this.known = incarnation;
    return res;
  }

  /** live=sse: one chunk per control event that follows data, catches up or closes. */
  private async *readSse(from: string, options: ReadOptions): AsyncGenerator<ReadChunk, void, undefined> {
    let offset = from;
    let upToDate = false;
    for (;;) {
      const query: Record<string, string> = { offset, live: "sse", consistency: "leader" };
      if (options.maxBytes !== undefined) query.max_bytes = String(options.maxBytes);
      const res = await this.send("GET", "", { query, signal: options.signal, live: true });
      const base64 = res.headers.get(HEADER.sseEncoding) === "base64";
      const json = isJson(res.headers.get(HEADER.sseContentType));
      const events: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (e) => events.push(e) });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let messages: unknown[] = [];
      let bytes: Uint8Array[] = [];
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          parser.feed(value);
          for (let e = events.shift(); e; e = events.shift()) {
            if (e.event === "data") {
              if (json) messages.push(...(JSON.parse(e.data) as unknown[]));
              else bytes.push(base64 ? base64Bytes(e.data) : new TextEncoder().encode(e.data));
            } else if (e.event === "control") {
              const control = JSON.parse(e.data) as { streamNextOffset: string; upToDate?: boolean; streamClosed?: boolean };
              const data = messages.length > 0 || bytes.length > 0;
              const closed = control.streamClosed === true;
              const caughtUp = control.upToDate === true || closed;
              offset = control.streamNextOffset;
              if (data || closed || (caughtUp && !upToDate)) {
                yield json ? { messages, nextOffset: offset, upToDate: caughtUp, closed } : { bytes: concat(bytes), nextOffset: offset, upToDate: caughtUp, closed };
              }
              upToDate = caughtUp;
              messages = [];
              bytes = [];
              if (closed) return;
            } else if (e.event === "error") {
              // The stream ended under the subscription (deleted, expired or recreated). A HEAD
              // with the token says which: IncarnationMismatch or StreamNotFound.
              await this.head();
              throw new UrsaError(`GET ${this.url} (SSE): ${e.data}`, 0, "SSE_ERROR");
            }
          }
        }
      } finally {
        await reader.cancel().catch(() => {});
      }
      // The server ends a subscription after its lifetime; go on from the last control's offset.
    }
  }
}
