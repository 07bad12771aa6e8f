// Recipe: publishing committed facts (Ursula v0.9.0, Conditional Writes,
// §Publishing committed facts (outbox)).
//
// The facts are decided somewhere else (a database transaction, a SQLite VFS database) and
// numbered there. One logical publisher, which may fail over between owners, copies them to a
// stream so that no fact is published twice or out of order. Each append carries both guards:
//  - Producer-Id / Producer-Epoch / Producer-Seq, so a retry of the same append is answered as a
//    duplicate instead of being written twice;
//  - Stream-Seq = the fact's commit number, zero-padded, so the stream accepts each number at most
//    once and only in increasing order, whoever sends it.
//
// Create the stream without Stream-Seq (or with one below the first fact's number). A new owner
// takes over with a higher Producer-Epoch (how it learns the epoch, e.g. from a lease row in the
// source database, is outside this recipe) and Producer-Seq from 0.
//
// Step 5, gaps, is the source's job: if a fact can no longer be published (the source pruned
// it), append a snapshot or reset marker telling readers to resynchronize. A number skipped once
// can never be appended later, because it is no longer greater than the stored value.
//
// Usage:
//   const pub = new OutboxPublisher({ url, producerId: "orders-outbox", epoch: 7, source });
//   await pub.publishAll();   // throws FencedError once a newer owner has taken over

import { HEADER, padSeq, parseSeq, UnexpectedResponse } from "./http.ts";

export interface Fact<T = unknown> {
  /** The commit number in the source of truth; strictly increasing in commit order, from 1. */
  number: number;
  payload: T;
}

/**
 * The source of truth. Step 1: "Number the commits in the source of truth, and publish
 * only facts that have committed, in commit order." firstAfter must return only committed facts.
 */
export interface FactSource<T = unknown> {
  firstAfter(number: number): Fact<T> | undefined;
}

/** What goes on the stream: one JSON message per fact. */
export interface PublishedFact<T = unknown> {
  number: number;
  payload: T;
}

export type PublishOutcome<T = unknown> =
  | { kind: "published"; fact: Fact<T>; producerSeq: number; status: number }
  | { kind: "already-published"; fact: Fact<T>; lastSeq: number }
  | { kind: "idle" };

/** Step 4: "appends with the old epoch answer 403". This owner must stop publishing. */
export class FencedError extends Error {
  constructor(
    readonly epoch: number,
    readonly currentEpoch: string | null,
  ) {
    super(`producer epoch ${epoch} is fenced; the stream is at epoch ${currentEpoch ?? "?"}`);
    this.name = "FencedError";
  }
}

export interface OutboxPublisherOptions<T> {
  /** The stream, application/json. */
  url: string;
  producerId: string;
  epoch: number;
  source: FactSource<T>;
  /** The last fact this owner believes published (a checkpoint); publishing starts after it. */
  startAfter?: number;
  /** How often one append is retried after a network error before giving up. */
  maxNetworkRetries?: number;
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
}

export class OutboxPublisher<T = unknown> {
  readonly producerId: string;
  readonly epoch: number;
  private readonly url: string;
  private readonly source: FactSource<T>;
  private readonly maxNetworkRetries: number;
  private readonly requestTimeoutMs: number;
  private readonly doFetch: typeof fetch;
  /** The last fact known to be on the stream (published by anyone). */
  private cursor: number;
  /** Producer-Seq for the next append. Step 3: a new owner "starts Producer-Seq again at 0". */
  private seq = 0;

  constructor(options: OutboxPublisherOptions<T>) {
    this.url = options.url;
    this.producerId = options.producerId;
    this.epoch = options.epoch;
    this.source = options.source;
    this.cursor = options.startAfter ?? 0;
    this.maxNetworkRetries = options.maxNetworkRetries ?? 5;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.doFetch = options.fetch ?? fetch;
  }

  /** The last fact known to be on the stream. */
  get lastPublished(): number {
    return this.cursor;
  }

  /** The Producer-Seq the next append will carry. */
  get nextProducerSeq(): number {
    return this.seq;
  }

  /** Publishes (or learns to skip) the next committed fact after the cursor. */
  async publishNext(): Promise<PublishOutcome<T>> {
    const fact = this.source.firstAfter(this.cursor);
    if (!fact) return { kind: "idle" };
    const res = await this.send(fact);

    if (res.ok) {
      // 200: appended. 204: a duplicate of this producer's earlier accepted append (a retry
      // whose first answer was lost), so the fact is on the stream either way. Conditional Writes:
      // "Producer
      // deduplication runs first ... answered as a duplicate, not 409".
      await res.body?.cancel();
      const producerSeq = this.seq++;
      this.cursor = fact.number;
      return { kind: "published", fact, producerSeq, status: res.status };
    }

    const lastSeq = res.headers.get(HEADER.lastSeq);
    if (res.status === 409 && lastSeq !== null) {
      // Step 3: "If it republishes a fact the old owner already published, the Stream-Seq
      // check answers 409 with Stream-Last-Seq, which here means 'already published': go on ...
      // to the first fact after Stream-Last-Seq." Keep the same Producer-Seq: "An append
      // rejected with 409 uses up no Producer-Seq."
      await res.body?.cancel();
      const published = parseSeq(lastSeq);
      this.cursor = Math.max(this.cursor, published);
      return { kind: "already-published", fact, lastSeq: published };
    }

    if (res.status === 403) {
      // Step 4: "Once the new owner's first append is accepted, appends with the old epoch
      // answer 403." The 403 names the epoch now in charge.
      await res.body?.cancel();
      throw new FencedError(this.epoch, res.headers.get(HEADER.producerEpoch));
    }

    // Step 3: "Only a 409 with Stream-Last-Seq means that. Any other 409 is an error, and
    // skipping on it would lose facts." (A producer-sequence gap, a closed stream, a wrong
    // Content-Type ...) Every other status is an error too.
    throw await UnexpectedResponse.from(
      `POST ${this.url} (fact ${fact.number}, ${this.producerId} epoch ${this.epoch} seq ${this.seq})`,
      res,
    );
  }

  /** Publishes until the source has nothing more; returns what happened to each fact tried. */
  async publishAll(): Promise<PublishOutcome<T>[]> {
    const outcomes: PublishOutcome<T>[] = [];
    for (;;) {
      const o = await this.publishNext();
      if (o.kind === "idle") return outcomes;
      outcomes.push(o);
    }
  }

  /**
   * One append with both guards. After a network error the *same* request (same Producer-Seq,
   * same Stream-Seq) is sent again: step 2, the producer headers are there "for retries".
   */
  private async send(fact: Fact<T>): Promise<Response> {
    const body = JSON.stringify({ number: fact.number, payload: fact.payload } satisfies PublishedFact<T>);
    const headers = {
      [HEADER.contentType]: "application/json",
      [HEADER.producerId]: this.producerId,
      [HEADER.producerEpoch]: String(this.epoch),
      [HEADER.producerSeq]: String(this.seq),
      // Step 2: "Stream-Seq set to the commit's number, zero-padded."
      [HEADER.seq]: padSeq(fact.number),
    };
    let lastError: unknown;
    for (let attempt = 0; attempt <= this.maxNetworkRetries; attempt++) {
      try {
        return await this.doFetch(this.url, { method: "POST", headers, body, signal: AbortSignal.timeout(this.requestTimeoutMs) });
      } catch (error) {
        lastError = error;
        await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      }
    }
    throw lastError;
  }
}

/** A FactSource over an in-memory list sorted by number (for tests and examples). */
export function listSource<T>(facts: readonly Fact<T>[]): FactSource<T> {
  return { firstAfter: (n) => facts.find((f) => f.number > n) };
}
