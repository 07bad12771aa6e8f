// The stable error codes (spec §5.8) and, per code, the context its response carries.
// server/http/error-map.ts maps each code to its status and headers exhaustively.

export type ErrorCode =
  | "BAD_REQUEST"
  | "INVALID_BUCKET_ID"
  | "INVALID_STREAM_ID"
  | "INVALID_CONTENT_TYPE"
  | "MISSING_CONTENT_TYPE"
  | "EMPTY_APPEND"
  | "INVALID_JSON"
  | "EMPTY_JSON_ARRAY"
  | "INVALID_PRODUCER"
  | "INVALID_STREAM_SEQ"
  | "INVALID_OFFSET"
  | "INVALID_QUERY"
  | "INVALID_RETENTION"
  | "INVALID_STREAM_ATTRS"
  | "INVALID_SNAPSHOT"
  | "INVALID_RECORD_BOUNDARIES"
  | "INVALID_FORK"
  | "INVALID_SUBSCRIPTION"
  | "WEBHOOK_URL_REJECTED"
  | "UNSUPPORTED_HEADER"
  | "PRODUCER_EPOCH_STALE"
  | "NOT_FOUND"
  | "BUCKET_NOT_FOUND"
  | "STREAM_NOT_FOUND"
  | "SNAPSHOT_NOT_FOUND"
  | "SUBSCRIPTION_NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "STREAM_ALREADY_EXISTS_CONFLICT"
  | "BUCKET_NOT_EMPTY"
  | "CONTENT_TYPE_MISMATCH"
  | "STREAM_CLOSED"
  | "STREAM_SEQ_CONFLICT"
  | "PRODUCER_SEQ_CONFLICT"
  | "SNAPSHOT_CONFLICT"
  | "SUBSCRIPTION_ALREADY_EXISTS"
  | "FENCED"
  | "ALREADY_CLAIMED"
  | "NO_PENDING_WORK"
  | "TOKEN_INVALID"
  | "STREAM_SOFT_DELETED"
  | "STREAM_GONE"
  | "STREAM_INCARNATION_MISMATCH"
  | "PAYLOAD_TOO_LARGE"
  | "OFFSET_OUT_OF_RANGE"
  | "PRODUCER_LIMIT"
  | "LIVE_READ_BACKPRESSURE"
  | "INGRESS_BODY_BYTES_LIMIT"
  | "CONNECTION_LIMIT"
  | "CLIENT_REQUEST_LIMIT"
  | "BODY_TOO_SLOW"
  | "STARTING"
  | "STORAGE_FULL"
  | "HOST_NOT_ALLOWED"
  | "CROSS_ORIGIN_FORBIDDEN"
  | "UNAUTHORIZED"
  | "INSUFFICIENT_SCOPE"
  | "QUOTA_EXCEEDED"
  | "AUTH_UNAVAILABLE"
  | "STORAGE_UNAVAILABLE"
  | "DATABASE_UNAVAILABLE"
  | "STORAGE_CORRUPT"
  | "INTERNAL";

/** Every fact an error's response may carry, each rendered one way (server/http/error-map.ts). */
interface ContextFields {
  /** The stream's tail, as a byte position: where a client resumes or retries. */
  nextOffset: number;
  /** The last accepted Stream-Seq: only the Stream-Seq 409 carries it (spec §5.2 exclusivity). */
  lastSeq: string;
  /** The stream is closed. */
  closed: true;
  /** The producer epoch that fenced a stale one (spec §5.3). */
  producerEpoch: number;
  expectedSeq: number;
  receivedSeq: number;
  /** The stream's current incarnation (spec §5.4). */
  incarnation: string;
  /** The methods a path answers, on a 405. */
  allow: string;
  /** The retained floor, on a 410 for an offset below it. */
  earliestOffset: number;
  /** An RFC 6750 §3 challenge, on a 401, an insufficient-scope 403 or a malformed credential's 400. */
  wwwAuthenticate: string;
  /** Who holds a pull-wake subscription's lease, and its generation (DS §7). */
  holder: { worker: string; generation: number };
  /** Whether a create (PUT) met the soft-deleted path, as its own path or as its fork source (spec §7.4). */
  onCreate: boolean;
  /** The message boundaries around an offset that falls inside a message, as byte positions. */
  boundaries: { before: number; after: number };
}
type Field = keyof ContextFields;

/**
 * A context that holds `Required` and maybe `Optional`, and none of the other fields: they are
 * typed absent, so giving one is a compile error and reading one is `undefined`.
 */
type Holding<Required extends Field, Optional extends Field = never> = Flat<
  { [K in Required]: ContextFields[K] } & { [K in Exclude<Field, Required>]?: K extends Optional ? ContextFields[K] : never }
>;
type Flat<T> = { [K in keyof T]: T[K] };

/** A context that holds nothing. */
type None = Holding<never>;

/**
 * What each code's response carries beyond its status and message. A code not listed carries
 * nothing, and `protocolError` takes no context for it. An append's refusals name the incarnation
 * they were about, so a client can tell (spec §5.4 [REC]).
 */
interface ErrorContexts {
  BAD_REQUEST: Holding<never, "wwwAuthenticate">;
  UNAUTHORIZED: Holding<"wwwAuthenticate">;
  INSUFFICIENT_SCOPE: Holding<"wwwAuthenticate">;
  METHOD_NOT_ALLOWED: Holding<"allow">;
  INVALID_PRODUCER: Holding<never, "incarnation">;
  PRODUCER_EPOCH_STALE: Holding<"producerEpoch" | "incarnation">;
  /** Without an incarnation when a create refuses a first write's Producer-Seq. */
  PRODUCER_SEQ_CONFLICT: Holding<"expectedSeq" | "receivedSeq", "incarnation">;
  PRODUCER_LIMIT: Holding<"incarnation">;
  STREAM_CLOSED: Holding<"closed" | "nextOffset" | "incarnation">;
  /** An append's mismatch carries the stream's tail; a fork's (create) nothing. */
  CONTENT_TYPE_MISMATCH: Holding<"nextOffset" | "incarnation"> | None;
  STREAM_SEQ_CONFLICT: Holding<"nextOffset" | "lastSeq" | "incarnation">;
  /** The current incarnation and tail, or nothing when no stream exists at the path. */
  STREAM_INCARNATION_MISMATCH: Holding<"incarnation" | "nextOffset"> | None;
  SNAPSHOT_CONFLICT: Holding<"nextOffset" | "incarnation">;
  OFFSET_OUT_OF_RANGE: Holding<"nextOffset">;
  STREAM_GONE: Holding<"nextOffset" | "earliestOffset">;
  STREAM_SOFT_DELETED: Holding<"onCreate">;
  /** With the boundaries around the offset once they are looked up (http/nearest-boundaries.ts). */
  INVALID_SNAPSHOT: Holding<never, "boundaries">;
  ALREADY_CLAIMED: Holding<"holder">;
}

export type ContextOf<C extends ErrorCode> = C extends keyof ErrorContexts ? ErrorContexts[C] : None;

/** The context argument for a code: none, optional when the code may carry nothing, else required. */
type ContextArgs<C extends ErrorCode> = C extends keyof ErrorContexts
  ? None extends ErrorContexts[C]
    ? [context?: ErrorContexts[C]]
    : [context: ErrorContexts[C]]
  : [];

export interface ErrorOf<C extends ErrorCode> {
  kind: "error";
  code: C;
  message: string;
  context: ContextOf<C>;
}

/** An error of any code, discriminated by `code`: narrowing the code narrows the context. */
export type ProtocolError = { [C in ErrorCode]: ErrorOf<C> }[ErrorCode];

const NONE: None = Object.freeze({});

/** True for a union of codes: a context is given for one known code, never for "one of these". */
type IsUnion<T, All = T> = T extends unknown ? ([All] extends [T] ? false : true) : never;
type ArgsFor<C extends ErrorCode> = IsUnion<C> extends true ? [never] : ContextArgs<C>;

export function protocolError<C extends ErrorCode>(code: C, message: string, ...context: ArgsFor<C>): ErrorOf<C> {
  return { kind: "error", code, message, context: (context[0] ?? NONE) as ContextOf<C> };
}

/** A parse step either yields a value or an error; never throws for client input. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <C extends ErrorCode>(code: C, message: string, ...context: ArgsFor<C>): Parsed<never> => ({
  ok: false,
  error: protocolError(code, message, ...context) as ProtocolError,
});

export function isProtocolError(value: unknown): value is ProtocolError {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "error";
}
