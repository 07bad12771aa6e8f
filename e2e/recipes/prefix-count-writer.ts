// Recipe: prefix-count compare-and-set (Ursula v0.9.0, Conditional Writes,
// §Prefix-count compare-and-set).
//
// Several writers extend one application/json log, and each commit must be validated against
// the whole log before it. Every commit is appended with Stream-Seq = n, the number of events the
// writer has read, zero-padded. The stream keeps the last accepted value, which is always the
// event count before the latest commit; a writer's count beats it only when that writer has read
// the latest commit. So an accepted append proves the writer saw the whole log, and of two
// writers sending the same count one wins and the other gets 409 and reads on.
//
// Rules for the stream as a whole (the writer cannot enforce them, your deployment must):
//  - Step 1, "Every writer, every append": every append to this stream, by every writer,
//    carries a prefix-count Stream-Seq. An append without one is not checked and leaves the
//    stored value alone, so a writer that read only the events before it could still win.
//  - Step 1: create the stream with a PUT *without* Stream-Seq, so nothing is stored and the
//    first commit's 0 is accepted. A seeded value can make every honest commit answer 409.
//  - Step 3: n counts every event since the stream was created. Once retention trims the
//    start, those events can't be read (offset=-1 answers 410). Keep the count in every snapshot
//    you publish and count on from it, or never advance retention on a prefix-count stream. By
//    default this writer reads from offset -1 and so needs the whole log (a 410 surfaces as an
//    error); given `start` it counts on from a snapshot's count instead (compaction.ts).
//
// Usage:
//   const w = new PrefixCountWriter({ url: "http://127.0.0.1:4437/demo/run-42", writerId: "w1" });
//   const receipt = await w.commit((log) => {
//     // validate against log.events (everything before this commit); throw to give up
//     return [{ type: "step", n: log.count + 1 }];
//   });

import { HEADER, padSeq, readToTail, STREAM_START, UnexpectedResponse } from "./http.ts";

/** What is stored for each event: who wrote it, which commit (operation) and where in it. */
export interface CommitEvent<T = unknown> {
  writer: string;
  /**
   * The operation ID, the same on every attempt of one commit. Conditional Writes: "If the response to an
   * append is lost, you can't tell whether it committed. Put an operation ID in each commit, and
   * before retrying, read the new events and look for it."
   */
  commit: string;
  /** Which attempt of the commit this copy belongs to (1-based); at most one attempt lands. */
  attempt: number;
  /** Position inside the commit, 0-based. */
  index: number;
  data: T;
}

export interface LogView {
  /** n: the number of events in the stream before the commit being decided. */
  readonly count: number;
  /**
   * Every event this writer has read, oldest first: all of them (`events.length === count`), or,
   * for a writer that started from a snapshot, those after it (`count - events.length` is the
   * snapshot's count).
   */
  readonly events: readonly unknown[];
}

/**
 * Decides the commit from the log read so far: validate it, and return the event payloads
 * (at least one). Called again after every 409, with the longer log ("validate again"). Throw to
 * give the commit up (if an earlier attempt got no answer, it may still land: look for its ID).
 */
export type Decide<T> = (log: LogView) => T[];

export interface Attempt {
  attempt: number;
  /** The Stream-Seq sent. */
  streamSeq: string;
  /** accepted: 2xx. conflict: 409 with Stream-Last-Seq. lost: no answer (network error). */
  outcome: "accepted" | "conflict" | "lost";
  /** Stream-Last-Seq of a conflict. */
  lastSeq?: string;
  /** Stream-Next-Offset of the answer, if any. */
  nextOffset?: string;
  status?: number;
}

export interface CommitReceipt {
  commitId: string;
  /** The attempt that is in the log. */
  attempt: number;
  /** The Stream-Seq that attempt sent, which equals the number of events before the commit. */
  streamSeq: string;
  /** Events before the commit. */
  position: number;
  /** Events in the commit. */
  size: number;
  /** How the commit was learned to be in the log: a 2xx, or (after a lost answer) by reading it. */
  confirmedBy: "response" | "read";
  attempts: Attempt[];
}

/**
 * maxAttempts were used up without the commit landing. Nothing of it is in the log, unless
 * `outcomeUnknown`: then the last attempt got no answer and may still land; read on and look for
 * the commit ID before deciding it again.
 */
export class ConflictLimitError extends Error {
  constructor(
    readonly commitId: string,
    readonly attempts: Attempt[],
    readonly outcomeUnknown: boolean,
  ) {
    super(`commit ${commitId}: ${attempts.length} attempts, none accepted${outcomeUnknown ? " (the last one's outcome is unknown)" : ""}`);
    this.name = "ConflictLimitError";
  }
}

/**
 * The stream's retained floor moved past where this writer reads on (410 STREAM_GONE): the events
 * it would count next are gone. Nothing of the commit is in the log unless `outcomeUnknown` (an
 * earlier attempt got no answer, and whether it landed can no longer be read). Without that, count
 * on from a snapshot and decide again (compaction.ts).
 */
export class TrimmedError extends Error {
  constructor(
    readonly commitId: string,
    readonly attempts: Attempt[],
    readonly outcomeUnknown: boolean,
  ) {
    super(`commit ${commitId}: retention trimmed the stream past this writer's read position${outcomeUnknown ? " (an earlier attempt's outcome is unknown)" : ""}`);
    this.name = "TrimmedError";
  }
}

export interface PrefixCountWriterOptions {
  /** The stream, e.g. http://127.0.0.1:4437/demo/run-42. Must be application/json. */
  url: string;
  writerId: string;
  /** Give up (ConflictLimitError) after this many attempts of one commit. */
  maxAttempts?: number;
  /** A request that has not answered by then counts as lost (its outcome is unknown). */
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
  /**
   * Where to count on from instead of offset -1 (compaction.ts): the count a snapshot kept, the
   * events after the snapshot already read (a bootstrap's), and the offset after them.
   */
  start?: { count: number; events?: unknown[]; offset: string };
}

export class PrefixCountWriter<T = unknown> {
  readonly writerId: string;
  private readonly url: string;
  private readonly maxAttempts: number;
  private readonly requestTimeoutMs: number;
  private readonly doFetch: typeof fetch;
  /** Everything read so far, and where the next read continues. */
  private readonly seen: unknown[] = [];
  private offset = STREAM_START;
  /** Events before `seen[0]`, known from a snapshot rather than read. */
  private readonly base: number;
  private commits = 0;

  constructor(options: PrefixCountWriterOptions) {
    this.url = options.url;
    this.writerId = options.writerId;
    this.maxAttempts = options.maxAttempts ?? 100;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.doFetch = options.fetch ?? fetch;
    this.offset = options.start?.offset ?? STREAM_START;
    this.base = options.start?.count ?? 0;
    this.seen.push(...(options.start?.events ?? []));
  }

  /** n as last read. */
  get count(): number {
    return this.base + this.seen.length;
  }

  /** Where the next read continues: after everything this writer has read, a commit boundary. */
  get nextOffset(): string {
    return this.offset;
  }

  /** The log as last read (events of all writers, this one's own included once read back). */
  get events(): readonly unknown[] {
    return this.seen;
  }

  /**
   * Step 3, "Read to the tail": from where this writer stopped, with consistency=leader,
   * following Stream-Next-Offset until Stream-Up-To-Date: true. Returns the new events (k).
   */
  async readOn(): Promise<unknown[]> {
    const read = await readToTail(this.url, this.offset, {
      fetch: this.doFetch,
      signal: AbortSignal.timeout(this.requestTimeoutMs),
    });
    this.seen.push(...read.events);
    this.offset = read.nextOffset;
    return read.events;
  }

  /** Appends one commit decided by `decide`, retrying on Stream-Seq conflicts. */
  async commit(decide: Decide<T>): Promise<CommitReceipt> {
    const commitId = `${this.writerId}/${++this.commits}/${crypto.randomUUID()}`;
    const attempts: Attempt[] = [];
    // Events before the first attempt whose answer was lost; from there on the log may hold
    // this commit, so every read must look for it before retrying.
    let lostFrom: number | null = null;

    for (let attempt = 1; ; attempt++) {
      // Step 3 (and, after a 409, step 5: "Read on from where you stopped until
      // Stream-Up-To-Date: true, count the k new events"). n = count so far.
      try {
        await this.readOnRetrying();
      } catch (error) {
        if (error instanceof UnexpectedResponse && error.status === 410) throw new TrimmedError(commitId, attempts, lostFrom !== null);
        throw error;
      }

      // Lost responses: "before retrying, read the new events and look for" the operation ID.
      // A lost attempt sent with count m lands only while m beats the stored value, and then at
      // position >= m. If it has landed, this read to the tail shows it. If not, the retry sends
      // a count >= m, so at most one of the two lands: if the retry wins, m is no longer greater
      // and the lost one is refused; if the lost one wins, the retry gets 409 and the next read
      // finds it here.
      if (lostFrom !== null) {
        const found = this.findCommit(commitId, lostFrom);
        if (found) {
          const landed = attempts.find((a) => a.attempt === found.attempt)!;
          return {
            commitId,
            attempt: found.attempt,
            streamSeq: landed.streamSeq,
            position: this.base + found.position,
            size: found.size,
            confirmedBy: "read",
            attempts,
          };
        }
      }

      if (attempt > this.maxAttempts) {
        // Only the last attempt can still be pending: any later 409 means a count at least as
        // large as its own has landed, so an earlier lost attempt can no longer land.
        throw new ConflictLimitError(commitId, attempts, attempts.at(-1)?.outcome === "lost");
      }

      const n = this.count;
      // Step 4: "Validate the commit against what you read". Step 5: "validate again".
      const payloads = decide({ count: n, events: this.seen });
      // Step 2: "Each append is one commit of one or more events ... Never append an empty
      // commit." An empty commit would store n without adding an event, and the stored value
      // would no longer be the count before the latest commit.
      if (payloads.length === 0) throw new Error(`commit ${commitId}: never append an empty commit`);
      const events: CommitEvent<T>[] = payloads.map((data, index) => ({ writer: this.writerId, commit: commitId, attempt, index, data }));
      // Step 4: "append it with Stream-Seq set to n, zero-padded to a fixed width. On a new
      // stream, the first commit sends 0." Not n + events.length: sending the count after your
      // own commit is not a compare-and-set (Conditional Writes: "Do not send the count after your
      // own commit").
      const streamSeq = padSeq(n);

      let res: Response;
      try {
        // Step 2: "On an application/json stream, POST the commit as a JSON array: the elements
        // are committed together, one message per event."
        res = await this.doFetch(this.url, {
          method: "POST",
          headers: { [HEADER.contentType]: "application/json", [HEADER.seq]: streamSeq },
          body: JSON.stringify(events),
          signal: AbortSignal.timeout(this.requestTimeoutMs),
        });
      } catch {
        // No answer: it may or may not have committed. Look for it before retrying (above).
        attempts.push({ attempt, streamSeq, outcome: "lost" });
        lostFrom ??= this.seen.length;
        continue;
      }
      const nextOffset = res.headers.get(HEADER.nextOffset) ?? undefined;

      if (res.ok) {
        await res.body?.cancel();
        attempts.push({ attempt, streamSeq, outcome: "accepted", status: res.status, nextOffset });
        return { commitId, attempt, streamSeq, position: n, size: events.length, confirmedBy: "response", attempts };
      }

      const lastSeq = res.headers.get(HEADER.lastSeq);
      if (res.status === 409 && lastSeq !== null) {
        // Step 5, "On a Stream-Seq 409. Another writer committed first. Stream-Last-Seq is the
        // count before that writer's commit." Nothing of this attempt was committed. Loop: read
        // on, count k, validate again, retry with n + k.
        await res.body?.cancel();
        attempts.push({ attempt, streamSeq, outcome: "conflict", status: 409, lastSeq, nextOffset });
        continue;
      }

      // Conditional Writes: "A 409 with Stream-Last-Seq comes only from the Stream-Seq check, and
      // the recipes
      // below treat every other 409 as an error" (a closed stream, a Content-Type mismatch ...).
      // Every other non-2xx is an error too.
      throw await UnexpectedResponse.from(`POST ${this.url} (commit ${commitId}, Stream-Seq ${streamSeq})`, res);
    }
  }

  /** readOn, retried after network errors: a read changes nothing, so retrying is always safe. */
  private async readOnRetrying(): Promise<void> {
    for (let failures = 0; ; failures++) {
      try {
        await this.readOn();
        return;
      } catch (error) {
        if (error instanceof UnexpectedResponse || failures >= 5) throw error;
        await new Promise((r) => setTimeout(r, 25 * 2 ** failures));
      }
    }
  }

  /** Where this commit's events are in the log read so far, at or after event `from`. */
  private findCommit(commitId: string, from: number): { attempt: number; position: number; size: number } | null {
    for (let i = from; i < this.seen.length; i++) {
      const e = this.seen[i] as Partial<CommitEvent> | null;
      if (e && typeof e === "object" && e.commit === commitId) {
        let size = 0;
        while (i + size < this.seen.length && (this.seen[i + size] as Partial<CommitEvent> | null)?.commit === commitId) size++;
        return { attempt: e.attempt!, position: i, size };
      }
    }
    return null;
  }
}
