// Every answer the package has no success rule for becomes one typed error, chosen by status and
// the headers Ursula v0.9.0, Conditional Writes says carry the meaning ("Clients must rely on the
// status plus headers, not the message"). errorFromResponse is the one map; its tests pin it.

import { HEADER } from "./headers.js";

/** Any refusal from the server, or a request whose outcome the client cannot know. */
export class UrsaError extends Error {
  /** The HTTP status; 0 when no answer arrived. */
  readonly status: number;
  /** The stable error code from the body (`{"error":{"code":…}}`), or one derived from the status. */
  readonly code: string;
  /** The response headers, for anything the typed fields leave out. */
  readonly headers: Headers;

  constructor(message: string, status: number, code: string, headers: Headers = new Headers(), cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * 409 with Stream-Last-Seq: the append's Stream-Seq was not greater than the stream's last accepted
 * one, and nothing of it was committed. Ursula v0.9.0, Conditional Writes, "How Stream-Seq is
 * checked": "A 409 with Stream-Last-Seq comes only from the Stream-Seq check". Only this error
 * means "someone else committed first" (prefix count) or "already published" (outbox).
 */
export class StreamSeqConflict extends UrsaError {
  /** The stream's last accepted Stream-Seq (Stream-Last-Seq). */
  readonly lastSeq: string;
  /** The stream's tail (Stream-Next-Offset): a writer can read on from where it stopped to here. */
  readonly nextOffset: string | null;
  constructor(message: string, headers: Headers, lastSeq: string) {
    super(message, 409, "STREAM_SEQ_CONFLICT", headers);
    this.lastSeq = lastSeq;
    this.nextOffset = headers.get(HEADER.nextOffset);
  }
}

/**
 * 412: the stream at this URL is another incarnation than the one this client knew (it was
 * deleted and recreated, or expired and recreated). Ursula v0.9.0, Conditional Writes, "Guarding
 * against a recreated stream": the request applied nothing; "discard derived state, read from its
 * start or bootstrap, and keep the new token".
 */
export class IncarnationMismatch extends UrsaError {
  /** The stream's current token (the 412 carries it), or null if none was sent. */
  readonly incarnation: string | null;
  constructor(message: string, headers: Headers, code: string) {
    super(message, 412, code, headers);
    this.incarnation = headers.get(HEADER.incarnation);
  }
}

/**
 * 403 PRODUCER_EPOCH_STALE: a newer owner has taken over. Ursula v0.9.0, Conditional Writes,
 * "Publishing committed facts", step 4: "Once the new owner's first append is accepted, appends
 * with the old epoch answer 403." This owner must stop publishing.
 */
export class ProducerFenced extends UrsaError {
  /** The epoch now in charge (Producer-Epoch of the 403). */
  readonly currentEpoch: number | null;
  constructor(message: string, headers: Headers, code: string) {
    super(message, 403, code, headers);
    const epoch = headers.get(HEADER.producerEpoch);
    this.currentEpoch = epoch === null ? null : Number(epoch);
  }
}

/**
 * 409 with Producer-Expected-Seq: a gap or reordering in this producer's Producer-Seq. Not a
 * Stream-Seq 409: skipping on it would lose facts.
 */
export class ProducerSeqConflict extends UrsaError {
  readonly expectedSeq: number;
  readonly receivedSeq: number | null;
  constructor(message: string, headers: Headers, code: string) {
    super(message, 409, code, headers);
    this.expectedSeq = Number(headers.get(HEADER.expectedSeq));
    const received = headers.get(HEADER.receivedSeq);
    this.receivedSeq = received === null ? null : Number(received);
  }
}

/** 409 with Stream-Closed: true. The stream takes no more appends. */
export class StreamClosed extends UrsaError {
  /** The final tail. */
  readonly nextOffset: string | null;
  constructor(message: string, headers: Headers, code: string) {
    super(message, 409, code, headers);
    this.nextOffset = headers.get(HEADER.nextOffset);
  }
}

/** 404: no stream at this URL (never created, deleted or expired, and not recreated). */
export class StreamNotFound extends UrsaError {
  constructor(message: string, headers: Headers, code: string) {
    super(message, 404, code, headers);
  }
}

/**
 * 410: the read started below the retained floor; retention trimmed those events. Ursula v0.9.0,
 * Conditional Writes, prefix-count step 3: "a read from offset=-1 answers 410". Recover through
 * bootstrap (UrsaStream.bootstrap, resumeFromSnapshot).
 */
export class StreamGone extends UrsaError {
  /** Where the stream now begins (Stream-Earliest-Offset, else Stream-Next-Offset). */
  readonly earliestOffset: string | null;
  constructor(message: string, headers: Headers, code: string) {
    super(message, 410, code, headers);
    this.earliestOffset = headers.get(HEADER.earliestOffset) ?? headers.get(HEADER.nextOffset);
  }
}

/**
 * No answer arrived (network error or timeout) for a write, so whether it committed is unknown.
 * Ursula v0.9.0, Conditional Writes, prefix-count: "If the response to an append is lost, you
 * can't tell whether it committed. Put an operation ID in each commit, and before retrying, read
 * the new events and look for it."
 */
export class OutcomeUnknown extends UrsaError {
  constructor(message: string, cause: unknown) {
    super(message, 0, "OUTCOME_UNKNOWN", new Headers(), cause);
  }
}

/** The code a status stands for when the body names none (HEAD answers have no body). */
const STATUS_CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "STREAM_NOT_FOUND",
  409: "CONFLICT",
  410: "STREAM_GONE",
  412: "STREAM_INCARNATION_MISMATCH",
  413: "PAYLOAD_TOO_LARGE",
  416: "OFFSET_OUT_OF_RANGE",
  429: "QUOTA_EXCEEDED",
  503: "BACKPRESSURE",
};

/**
 * The error for a refusal, chosen by status and headers first, as the protocol says to, and
 * naming the body's code. `what` says which request it was ("POST https://…/s").
 */
export function errorFromParts(what: string, status: number, headers: Headers, body: string): UrsaError {
  let code = STATUS_CODES[status] ?? `HTTP_${status}`;
  let detail = body.slice(0, 300);
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.code === "string") code = parsed.error.code;
    if (typeof parsed.error?.message === "string") detail = parsed.error.message;
  } catch {
    // Not JSON (or no body): the status and headers carry the meaning.
  }
  const message = `${what}: ${status} ${code}${detail ? `: ${detail}` : ""}`;
  const lastSeq = headers.get(HEADER.lastSeq);
  switch (status) {
    case 409:
      if (lastSeq !== null) return new StreamSeqConflict(message, headers, lastSeq);
      if (headers.get(HEADER.closed) === "true") return new StreamClosed(message, headers, code);
      if (headers.get(HEADER.expectedSeq) !== null) return new ProducerSeqConflict(message, headers, code);
      return new UrsaError(message, status, code, headers);
    case 412:
      // The other 412, RECORD_PRECONDITION_FAILED, is about the same stream's record count.
      return code === "RECORD_PRECONDITION_FAILED" ? new UrsaError(message, status, code, headers) : new IncarnationMismatch(message, headers, code);
    case 403:
      if (code === "PRODUCER_EPOCH_STALE" || headers.get(HEADER.producerEpoch) !== null) return new ProducerFenced(message, headers, code === "FORBIDDEN" ? "PRODUCER_EPOCH_STALE" : code);
      return new UrsaError(message, status, code, headers);
    case 404:
      return new StreamNotFound(message, headers, code);
    case 410:
      return new StreamGone(message, headers, code);
    default:
      return new UrsaError(message, status, code, headers);
  }
}

/** errorFromParts for a fetch Response; consumes its body. */
export async function errorFromResponse(what: string, res: Response): Promise<UrsaError> {
  const body = await res.text().catch(() => "");
  return errorFromParts(what, res.status, res.headers, body);
}
