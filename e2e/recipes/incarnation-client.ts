// Recipe: guarding against a recreated stream (Ursula v0.9.0, Conditional Writes,
// §Guarding against a recreated stream
// (Stream-Incarnation)").
//
// A stream deleted and recreated at the same URL (DELETE then PUT, or TTL expiry then PUT)
// starts without Stream-Seq or producer state, so neither can tell this client that its offsets
// and everything it derived from the old stream belong to a stream that no longer exists.
// Stream-Incarnation does: the client keeps the token next to its offset and derived state, sends
// it on every request, and on 412 starts over on the new stream.
//
// Usage:
//   const c = new IncarnationClient({ url, initial: () => [] as unknown[], apply: (s, e) => [...s, e] });
//   await c.sync();                    // state = fold of every event, from the start
//   await c.waitForChanges(5000);      // long-poll once
//   await c.append([{ type: "note" }]) // "appended", or "replaced" if the stream was recreated

import { HEADER, readToTail, STREAM_START, UnexpectedResponse } from "./http.ts";

/** The stream this client knew is gone and nothing replaced it (404). */
export class StreamMissingError extends Error {
  constructor(readonly url: string) {
    super(`${url}: stream not found (deleted or expired)`);
    this.name = "StreamMissingError";
  }
}

export interface IncarnationClientOptions<S> {
  /** The stream, application/json. */
  url: string;
  /** The derived state of an empty stream. */
  initial: () => S;
  /** Folds one event into the derived state. */
  apply: (state: S, event: unknown) => S;
  fetch?: typeof fetch;
  /** Give up after this many 412s in a row (the stream keeps being recreated). */
  maxRestarts?: number;
}

export type AppendOutcome = { kind: "appended"; nextOffset: string | null } | { kind: "replaced"; token: string | null };

export class IncarnationClient<S> {
  /** Conditional Writes: "Keep it with whatever you derived from the stream." null until the first
   * answer. */
  token: string | null = null;
  /** Where the next read continues, in the incarnation named by `token`. */
  offset = STREAM_START;
  /** Derived from the events of incarnation `token`, from its start up to `offset`. */
  state: S;
  /** How often a 412 made this client start over. */
  restarts = 0;

  private readonly url: string;
  private readonly initial: () => S;
  private readonly apply: (state: S, event: unknown) => S;
  private readonly doFetch: typeof fetch;
  private readonly maxRestarts: number;

  constructor(options: IncarnationClientOptions<S>) {
    this.url = options.url;
    this.initial = options.initial;
    this.apply = options.apply;
    this.doFetch = options.fetch ?? fetch;
    this.maxRestarts = options.maxRestarts ?? 3;
    this.state = options.initial();
  }

  /**
   * Conditional Writes: "Send it back as a request header on any later request: appends, reads (including
   * long-poll and SSE), HEAD, DELETE, a PUT of an existing stream ..." Without a token yet, send
   * nothing: "Without the header nothing changes."
   */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    return this.token === null ? extra : { ...extra, [HEADER.incarnation]: this.token };
  }

  /** Catches up to the tail, starting over from the new stream's start on 412. */
  async sync(): Promise<void> {
    for (let restarts = 0; ; restarts++) {
      try {
        const read = await readToTail(this.url, this.offset, { fetch: this.doFetch, headers: this.headers() });
        this.absorb(read.events, read.nextOffset, read.incarnation);
        return;
      } catch (error) {
        if (!(error instanceof UnexpectedResponse)) throw error;
        this.onRefused(error, restarts);
      }
    }
  }

  /**
   * One long-poll from the current offset (Conditional Writes: reads "including long-poll" carry
    * the token).
   * "data": new events were applied. "timeout": nothing new. "restarted": the stream was recreated
   * (possibly while the poll was parked): the client started over and caught up on the new one.
   */
  async waitForChanges(timeoutMs: number): Promise<"data" | "timeout" | "restarted"> {
    const url = `${this.url}?offset=${encodeURIComponent(this.offset)}&live=long-poll&timeout_ms=${timeoutMs}`;
    const res = await this.doFetch(url, { headers: this.headers() });
    if (res.status === 200) {
      const events = JSON.parse(await res.text()) as unknown[];
      this.absorb(events, res.headers.get(HEADER.nextOffset)!, res.headers.get(HEADER.incarnation));
      return "data";
    }
    if (res.status === 204) {
      this.absorb([], res.headers.get(HEADER.nextOffset)!, res.headers.get(HEADER.incarnation));
      return "timeout";
    }
    const refusal = await UnexpectedResponse.from(`GET ${url}`, res);
    this.onRefused(refusal, 0);
    await this.sync();
    return "restarted";
  }

  /**
   * Appends a commit derived from `state`. On 412 the write was refused and applied nothing
   * (Conditional Writes: "a refused write applies nothing"); the client starts over and returns
    * "replaced", so
   * the caller decides the write again from the new stream's state instead of replaying it.
   */
  async append(events: unknown[]): Promise<AppendOutcome> {
    const res = await this.doFetch(this.url, {
      method: "POST",
      headers: this.headers({ [HEADER.contentType]: "application/json" }),
      body: JSON.stringify(events),
    });
    if (res.ok) {
      await res.body?.cancel();
      return { kind: "appended", nextOffset: res.headers.get(HEADER.nextOffset) };
    }
    this.onRefused(await UnexpectedResponse.from(`POST ${this.url}`, res), 0);
    await this.sync();
    return { kind: "replaced", token: this.token };
  }

  private absorb(events: unknown[], nextOffset: string, incarnation: string | null): void {
    // The first answer names the incarnation; later answers can only repeat it, since a request
    // carrying the token is refused (412) by any other incarnation.
    if (this.token === null) this.token = incarnation;
    for (const e of events) this.state = this.apply(this.state, e);
    this.offset = nextOffset;
  }

  /** Handles a refusal: 412 starts over, 404 is "gone", anything else is thrown. */
  private onRefused(refusal: UnexpectedResponse, restartsSoFar: number): void {
    const { status, headers } = refusal;
    if (status === 412) {
      if (restartsSoFar >= this.maxRestarts) throw new Error(`${this.url}: still 412 after ${restartsSoFar} restarts`);
      // Conditional Writes: "412 ... means the stream you knew is gone. Start over from the new stream:
      // discard derived state, read from its start or bootstrap, and keep the new token." The
      // 412 "carries the current token".
      this.state = this.initial();
      this.offset = STREAM_START;
      this.token = headers.get(HEADER.incarnation);
      this.restarts++;
      return;
    }
    if (status === 404) {
      // Deleted or expired, and not (yet) recreated. What was derived belongs to a dead stream.
      this.state = this.initial();
      this.offset = STREAM_START;
      this.token = null;
      throw new StreamMissingError(this.url);
    }
    throw refusal;
  }
}
