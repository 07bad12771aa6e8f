// Ursula v0.9.0, Conditional Writes, "Publishing committed facts (outbox)": facts decided
// elsewhere (a database transaction, a SQLite VFS database) and numbered there are copied to a
// stream by one logical publisher that may fail over between owners, so that no fact is published
// twice or out of order. Each append carries both guards:
//  - Producer-Id / Producer-Epoch / Producer-Seq, so a retry of the same append is answered as a
//    duplicate instead of being written twice;
//  - Stream-Seq = the fact's commit number, zero-padded, so the stream accepts each number at
//    most once and only in increasing order, whoever sends it.
//
// Step 1 is the caller's: publish only facts that have committed, in commit order. Step 5, gaps,
// too: a fact that can no longer be published needs a reset marker; its number can never be
// appended later, because it is no longer greater than the stored value.

import { StreamSeqConflict, UrsaError } from "./errors.js";
import { parseSeq } from "./headers.js";
import { UrsaStream, type Body, type ClientOptions } from "./stream.js";

export interface OutboxPublisherOptions extends ClientOptions {
  producerId: string;
  /** This owner's Producer-Epoch; a new owner takes over with a higher one. */
  epoch: number;
  /** Resend one append this often after a network error before giving up. Default 5. */
  maxNetworkRetries?: number;
}

export type Published = "published" | "already-published";

export class OutboxPublisher {
  readonly stream: UrsaStream;
  readonly producerId: string;
  readonly epoch: number;
  private readonly maxNetworkRetries: number;
  /** Step 3: a new owner "starts Producer-Seq again at 0". */
  private seq = 0;
  private last: number | null = null;

  constructor(stream: string | UrsaStream, options: OutboxPublisherOptions) {
    this.stream = typeof stream === "string" ? new UrsaStream(stream, options) : stream;
    this.producerId = options.producerId;
    this.epoch = options.epoch;
    this.maxNetworkRetries = options.maxNetworkRetries ?? 5;
  }

  /**
   * The highest commit number known to be on the stream (published by this owner, or reported by
   * a Stream-Last-Seq), null before the first answer. Go on from the first fact after it.
   */
  get lastPublished(): number | null {
    return this.last;
  }

  /** The Producer-Seq the next append carries. */
  get nextProducerSeq(): number {
    return this.seq;
  }

  /**
   * Publishes fact `commitNumber` with both guards (Ursula v0.9.0, Conditional Writes, outbox step
   * 2: Producer-Id/Epoch/Seq "for retries", and "Stream-Seq set to the commit's number,
   * zero-padded"). "already-published": a 409 whose Stream-Last-Seq is at least commitNumber,
   * which (step 3) "here means 'already published'"; the Producer-Seq is kept ("An append
   * rejected with 409 uses up no Producer-Seq"). Only that 409: "Any other 409 is an error, and
   * skipping on it would lose facts", so a 409 with no Stream-Last-Seq is thrown. Prevents
   * skipping on a 409 that has no Stream-Last-Seq. A 403 throws ProducerFenced (step 4: a newer
   * owner's append was accepted). After a network error the same request is sent again: a retry
   * of an accepted append is answered as a duplicate, not written twice.
   */
  async publish(commitNumber: number, body: Body): Promise<Published> {
    const producer = { id: this.producerId, epoch: this.epoch, seq: this.seq };
    try {
      await this.send(body, commitNumber, producer);
    } catch (error) {
      if (!(error instanceof StreamSeqConflict)) throw error;
      const lastSeq = parseSeq(error.lastSeq);
      // A Stream-Seq 409 means the stored value is not below this number; anything else is not
      // "already published", and is thrown rather than skipped.
      if (lastSeq < commitNumber) throw error;
      this.last = Math.max(this.last ?? lastSeq, lastSeq);
      return "already-published";
    }
    this.seq++;
    this.last = Math.max(this.last ?? commitNumber, commitNumber);
    return "published";
  }

  private async send(body: Body, commitNumber: number, producer: { id: string; epoch: number; seq: number }): Promise<void> {
    for (let retry = 0; ; retry++) {
      try {
        await this.stream.append(body, { streamSeq: commitNumber, producer, contentType: this.stream.contentType ?? "application/json" });
        return;
      } catch (error) {
        if (error instanceof UrsaError || retry >= this.maxNetworkRetries) throw error;
        await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** retry)));
      }
    }
  }
}
