// Names the outcome of an exchange with the vocabulary of Ursula v0.9.0, Conditional Writes, so
// the timeline and the
// inspector can say "409 seq" rather than just "409". Headers decide as much as codes do:
// a 409 with Stream-Last-Seq is a Stream-Seq conflict and nothing else (spec §5.2).
import type { Exchange } from "./types";
import { getHeader } from "./headers";
import { parsePath } from "./paths";

export type Outcome =
  | "accepted"
  | "duplicate"
  | "created"
  | "exists"
  | "read"
  | "deleted"
  | "409-seq"
  | "409-producer"
  | "409-closed"
  | "409-content-type"
  | "409-snapshot"
  | "409-other"
  | "412"
  | "403-stale-epoch"
  | "401"
  | "403-scope"
  | "410-gone"
  | "429-producer-limit"
  | "not-found"
  | "error"
  | "network";

export const OUTCOME_LABEL: Record<Outcome, string> = {
  accepted: "accepted",
  duplicate: "duplicate",
  created: "created",
  exists: "exists",
  read: "read",
  deleted: "deleted",
  "409-seq": "409 seq",
  "409-producer": "409 producer",
  "409-closed": "409 closed",
  "409-content-type": "409 content type",
  "409-snapshot": "409 snapshot",
  "409-other": "409",
  "412": "412",
  "403-stale-epoch": "403 stale epoch",
  "401": "401 token",
  "403-scope": "403 scope",
  "410-gone": "410 gone",
  "429-producer-limit": "429 producer limit",
  "not-found": "404",
  error: "error",
  network: "network",
};

/** Outcomes the chip filter offers first: the ones Conditional Writes distinguishes. */
export const WRITE_OUTCOMES: Outcome[] = [
  "accepted",
  "duplicate",
  "409-seq",
  "409-producer",
  "409-closed",
  "409-content-type",
  "412",
  "403-stale-epoch",
];

export function classify(ex: Exchange): Outcome {
  if (ex.networkError || !ex.response) return "network";
  const { status, headers } = ex.response;
  const req = ex.request;
  const code = ex.errorCode;
  if (status === 412) return "412";
  if (status === 401) return "401";
  if (status === 403 && code === "INSUFFICIENT_SCOPE") return "403-scope";
  if (status === 403 && (code === "PRODUCER_EPOCH_STALE" || code === undefined)) return "403-stale-epoch";
  if (status === 410 && code !== "STREAM_SOFT_DELETED") return "410-gone";
  if (status === 409) {
    if (code === "STREAM_SEQ_CONFLICT" || getHeader(headers, "stream-last-seq") !== undefined) return "409-seq";
    if (code === "PRODUCER_SEQ_CONFLICT" || getHeader(headers, "producer-expected-seq") !== undefined) return "409-producer";
    if (code === "STREAM_CLOSED" || getHeader(headers, "stream-closed") === "true") return "409-closed";
    if (code === "CONTENT_TYPE_MISMATCH") return "409-content-type";
    if (code === "SNAPSHOT_CONFLICT") return "409-snapshot";
    return "409-other";
  }
  if (status === 429 && code === "PRODUCER_LIMIT") return "429-producer-limit";
  if (status === 404) return "not-found";
  if (status >= 200 && status < 300) {
    // A sub-resource write (attributes, a snapshot, the floor, a batch) changes the stream it names.
    if (req.method !== "GET" && req.method !== "HEAD" && parsePath(req.path)?.sub) return req.method === "DELETE" ? "deleted" : "accepted";
    switch (req.method) {
      case "POST":
        return isDuplicate(ex) ? "duplicate" : "accepted";
      case "PUT":
        return status === 201 ? "created" : "exists";
      case "DELETE":
        return "deleted";
      default:
        return "read";
    }
  }
  return "error";
}

/**
 * A producer duplicate is a 204 to an append that carried producer headers and a body
 * (an accepted one is 200, spec §2.6). For a close-only request both are 204; there the
 * answer's Producer-Seq being above the request's is what gives a duplicate away.
 */
function isDuplicate(ex: Exchange): boolean {
  const reqSeq = getHeader(ex.request.headers, "producer-seq");
  if (reqSeq === undefined || ex.response?.status !== 204) return false;
  if (ex.request.body !== undefined && ex.request.body.length > 0) return true;
  const resSeq = getHeader(ex.response.headers, "producer-seq");
  return resSeq !== undefined && Number(resSeq) > Number(reqSeq);
}

/** The chip colour family. */
export function outcomeTone(o: Outcome): "ok" | "warn" | "bad" | "info" {
  switch (o) {
    case "accepted":
    case "created":
    case "deleted":
      return "ok";
    case "duplicate":
    case "exists":
    case "read":
      return "info";
    case "409-seq":
    case "409-producer":
    case "409-closed":
    case "409-content-type":
    case "409-snapshot":
    case "409-other":
    case "412":
    case "410-gone":
    case "401":
    case "403-scope":
    case "429-producer-limit":
    case "not-found":
      return "warn";
    default:
      return "bad";
  }
}
