// The one map from error code to HTTP status and headers. The switch is exhaustive: a new code
// without a mapping fails to compile. Nothing here looks at message strings.

import type { ErrorCode, ProtocolError } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import { baseHeaders, H } from "./headers";

export function statusOf(error: ProtocolError): number {
  switch (error.code) {
    case "BAD_REQUEST":
    case "INVALID_BUCKET_ID":
    case "INVALID_STREAM_ID":
    case "INVALID_CONTENT_TYPE":
    case "MISSING_CONTENT_TYPE":
    case "EMPTY_APPEND":
    case "INVALID_JSON":
    case "EMPTY_JSON_ARRAY":
    case "INVALID_PRODUCER":
    case "INVALID_STREAM_SEQ":
    case "INVALID_OFFSET":
    case "INVALID_QUERY":
    case "INVALID_RETENTION":
    case "INVALID_STREAM_ATTRS":
    case "INVALID_SNAPSHOT":
    case "INVALID_RECORD_BOUNDARIES":
    case "INVALID_FORK":
    case "INVALID_SUBSCRIPTION":
    case "WEBHOOK_URL_REJECTED":
    case "UNSUPPORTED_HEADER":
      return 400;
    case "UNAUTHORIZED":
    // A subscription's callback or lease token that is not one this server gave (DS §7).
    case "TOKEN_INVALID":
      return 401;
    case "PRODUCER_EPOCH_STALE":
    case "CROSS_ORIGIN_FORBIDDEN":
    case "INSUFFICIENT_SCOPE":
      return 403;
    case "NOT_FOUND":
    case "BUCKET_NOT_FOUND":
    case "STREAM_NOT_FOUND":
    case "SNAPSHOT_NOT_FOUND":
    case "SUBSCRIPTION_NOT_FOUND":
      return 404;
    case "METHOD_NOT_ALLOWED":
      return 405;
    case "BODY_TOO_SLOW":
      return 408;
    case "STREAM_ALREADY_EXISTS_CONFLICT":
    case "BUCKET_NOT_EMPTY":
    case "CONTENT_TYPE_MISMATCH":
    case "STREAM_CLOSED":
    case "STREAM_SEQ_CONFLICT":
    case "PRODUCER_SEQ_CONFLICT":
    case "SNAPSHOT_CONFLICT":
    case "SUBSCRIPTION_ALREADY_EXISTS":
    case "FENCED":
    case "ALREADY_CLAIMED":
    case "NO_PENDING_WORK":
      return 409;
    // A create meets a soft-deleted path, as its own or as its fork source, as a conflict; every
    // other use of it finds it gone (spec §7.4).
    case "STREAM_SOFT_DELETED":
      return error.context.onCreate ? 409 : 410;
    case "STREAM_GONE":
      return 410;
    case "STREAM_INCARNATION_MISMATCH":
      return 412;
    case "PAYLOAD_TOO_LARGE":
      return 413;
    case "OFFSET_OUT_OF_RANGE":
      return 416;
    // RFC 9110 §15.5.20: the request was sent to a server that does not answer for that host.
    case "HOST_NOT_ALLOWED":
      return 421;
    case "PRODUCER_LIMIT":
    case "QUOTA_EXCEEDED":
    // One client past its share of the server's connections; the others are still served.
    case "CLIENT_REQUEST_LIMIT":
      return 429;
    case "LIVE_READ_BACKPRESSURE":
    case "INGRESS_BODY_BYTES_LIMIT":
    case "AUTH_UNAVAILABLE":
    case "CONNECTION_LIMIT":
    case "STARTING":
    case "STORAGE_UNAVAILABLE":
    // The PostgreSQL engine lost its database: nothing of the request was written; retry.
    case "DATABASE_UNAVAILABLE":
      return 503;
    // Damaged database pages are no fault of the client's, and retrying will not help: 500, with a
    // code of its own so that clients and operators can tell it from a bug.
    case "STORAGE_CORRUPT":
    case "INTERNAL":
      return 500;
    case "STORAGE_FULL":
      return 507;
  }
}

/** The code each error response was rendered from, for the request log and the metrics. */
const codes = new WeakMap<Response, ErrorCode>();

export function errorCodeOf(response: Response): ErrorCode | undefined {
  return codes.get(response);
}

export function renderError(error: ProtocolError): Response {
  const status = statusOf(error);
  const h = baseHeaders();
  const c = error.context;
  if (c.nextOffset !== undefined) h.set(H.nextOffset, formatOffset(c.nextOffset));
  if (c.lastSeq !== undefined) h.set(H.lastSeq, c.lastSeq);
  if (c.closed) h.set(H.closed, "true");
  if (c.producerEpoch !== undefined) h.set(H.producerEpoch, String(c.producerEpoch));
  if (c.expectedSeq !== undefined) h.set(H.expectedSeq, String(c.expectedSeq));
  if (c.receivedSeq !== undefined) h.set(H.receivedSeq, String(c.receivedSeq));
  if (c.incarnation !== undefined) h.set(H.incarnation, c.incarnation);
  if (c.allow !== undefined) h.set(H.allow, c.allow);
  if (c.earliestOffset !== undefined) h.set(H.earliestOffset, formatOffset(c.earliestOffset));
  if (c.wwwAuthenticate !== undefined) h.set(H.wwwAuthenticate, c.wwwAuthenticate);
  // A 503 turns a client away for want of room (connections, live readers, body memory), and a
  // 429 CLIENT_REQUEST_LIMIT a client past its share: its connection is let go of too, rather
  // than kept alive holding a descriptor. So is one whose body fell behind (408).
  if (status === 503 || error.code === "CLIENT_REQUEST_LIMIT") {
    h.set(H.retryAfter, "1");
    h.set(H.connection, "close");
  } else if (error.code === "BODY_TOO_SLOW") {
    h.set(H.connection, "close");
  }
  h.set(H.contentType, "application/json");
  const body: { code: string; message: string; boundary_before?: string; boundary_after?: string; current_holder?: string; generation?: number } = { code: error.code, message: error.message };
  if (c.holder !== undefined) {
    body.current_holder = c.holder.worker;
    body.generation = c.holder.generation;
  }
  if (c.boundaries !== undefined) {
    body.boundary_before = formatOffset(c.boundaries.before);
    body.boundary_after = formatOffset(c.boundaries.after);
  }
  const response = new Response(JSON.stringify({ error: body }), { status, headers: h });
  codes.set(response, error.code);
  return response;
}

/**
 * A HEAD is answered as its GET would be, without the body (RFC 9110 §9.3.2): decided here, for
 * every response (observe.ts), so that no handler has to remember it. An error's JSON body goes
 * with its Content-Type; any other response keeps its headers (CORS's among them, set after the
 * handler). An error is known by its code, without asking the response for its body, which
 * builds a stream.
 */
export function answerTo(method: string, response: Response): Response {
  if (method !== "HEAD") return response;
  const code = codes.get(response);
  if (code === undefined) return response.body === null ? response : new Response(null, response);
  const h = response.headers;
  h.delete(H.contentType);
  const bodiless = new Response(null, { status: response.status, headers: h });
  codes.set(bodiless, code);
  return bodiless;
}
