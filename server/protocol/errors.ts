// The stable error codes (spec §5.8) and the context a rendered error may need.
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
  | "UNSUPPORTED_HEADER"
  | "PRODUCER_EPOCH_STALE"
  | "NOT_FOUND"
  | "BUCKET_NOT_FOUND"
  | "STREAM_NOT_FOUND"
  | "SNAPSHOT_NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "STREAM_ALREADY_EXISTS_CONFLICT"
  | "BUCKET_NOT_EMPTY"
  | "CONTENT_TYPE_MISMATCH"
  | "STREAM_CLOSED"
  | "STREAM_SEQ_CONFLICT"
  | "PRODUCER_SEQ_CONFLICT"
  | "SNAPSHOT_CONFLICT"
  | "STREAM_SOFT_DELETED"
  | "STREAM_GONE"
  | "STREAM_INCARNATION_MISMATCH"
  | "PAYLOAD_TOO_LARGE"
  | "OFFSET_OUT_OF_RANGE"
  | "PRODUCER_LIMIT"
  | "LIVE_READ_BACKPRESSURE"
  | "INGRESS_BODY_BYTES_LIMIT"
  | "CONNECTION_LIMIT"
  | "STARTING"
  | "STORAGE_FULL"
  | "HOST_NOT_ALLOWED"
  | "CROSS_ORIGIN_FORBIDDEN"
  | "UNAUTHORIZED"
  | "INSUFFICIENT_SCOPE"
  | "QUOTA_EXCEEDED"
  | "AUTH_UNAVAILABLE"
  | "STORAGE_UNAVAILABLE"
  | "STORAGE_CORRUPT"
  | "INTERNAL";

export interface ErrorContext {
  /** Stream-Next-Offset, as a byte position. */
  nextOffset?: number;
  /** Stream-Last-Seq: only the Stream-Seq 409 sets it (spec §5.2 exclusivity). */
  lastSeq?: string;
  /** Stream-Closed: true. */
  closed?: boolean;
  /** Producer-Epoch on a stale-epoch 403. */
  producerEpoch?: number;
  expectedSeq?: number;
  receivedSeq?: number;
  /** The current Stream-Incarnation on a 412. */
  incarnation?: string;
  /** Allow, on a 405. */
  allow?: string;
  /** Stream-Earliest-Offset, on a 410 for an offset below the floor. */
  earliestOffset?: number;
  /** WWW-Authenticate, on a 401 or an insufficient-scope 403 (RFC 6750 §3). */
  wwwAuthenticate?: string;
}

export interface ProtocolError {
  kind: "error";
  code: ErrorCode;
  message: string;
  context: ErrorContext;
}

export function protocolError(code: ErrorCode, message: string, context: ErrorContext = {}): ProtocolError {
  return { kind: "error", code, message, context };
}

/** A parse step either yields a value or an error; never throws for client input. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ProtocolError };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const fail = <T = never>(code: ErrorCode, message: string, context: ErrorContext = {}): Parsed<T> => ({
  ok: false,
  error: protocolError(code, message, context),
});

export function isProtocolError(value: unknown): value is ProtocolError {
  return typeof value === "object" && value !== null && (value as { kind?: unknown }).kind === "error";
}
