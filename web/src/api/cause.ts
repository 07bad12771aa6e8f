// What an answer means, in the console's words: the real cause of a refusal, with the values
// that show it (what was sent next to what the stream holds) and the rule of Ursula v0.9.0,
// Conditional Writes, behind it. Plain
// data, so it is tested without a DOM; components/explainers/CauseView.tsx renders it.
//
// A Stream-Seq 409 has two causes the server cannot tell apart, and the console says both:
// another writer committed first, or the sender's own value is stale (it resent a value its own
// earlier append already stored, or never counted its own commit). When this browser's own
// history shows its last accepted Stream-Seq on the stream is the stored one, it says which is
// likely.
import type { Exchange } from "./types";
import { classify, type Outcome } from "./outcome";
import { getHeader, requestHeader, responseHeader } from "./headers";
import type { CwRuleId } from "../learn/conditional-writes";
import { parseBearerChallenge } from "./credentials";
import { parsePath } from "./paths";

/** What the server said this console may do (GET /__ursula/api/whoami), for refusals about access. */
export interface AccessView {
  authenticated: boolean;
  scopes: string[];
  /** The buckets the token is limited to; null for every bucket. */
  buckets: string[] | null;
}

export interface Cause {
  outcome: Outcome;
  headline: string;
  /** Values side by side, e.g. the Stream-Seq sent and the one stored. */
  compare?: { label: string; sent: string; stored: string; storedLabel: string };
  /** The ways this answer can come about; `likely` marks the one this browser's history points to. */
  causes?: { title: string; text: string; likely?: boolean }[];
  next?: string;
  rules: CwRuleId[];
}

const pathOf = (p: string) => p.split("?")[0]!;

/** Earlier exchanges with the same stream path, newest first (the attempt timeline's order). */
function samePath(ex: Exchange, history: Exchange[]): Exchange[] {
  const path = pathOf(ex.request.path);
  return history.filter((h) => h.id !== ex.id && pathOf(h.request.path) === path && h.startedAt <= ex.startedAt);
}

function seqConflict(ex: Exchange, history: Exchange[]): Cause {
  const sent = requestHeader(ex, "stream-seq") ?? "";
  const stored = responseHeader(ex, "stream-last-seq") ?? "";
  const next = responseHeader(ex, "stream-next-offset");
  // This browser's own last accepted append on the stream that carried a Stream-Seq.
  const ownLast = samePath(ex, history).find((h) => h.request.method === "POST" && classify(h) === "accepted" && requestHeader(h, "stream-seq") !== undefined);
  const own = ownLast !== undefined && requestHeader(ownLast, "stream-seq") === stored;
  const widths = /^\d+$/.test(sent) && /^\d+$/.test(stored) && sent.length !== stored.length;
  return {
    outcome: "409-seq",
    headline: `Stream-Seq refused: ${sent === stored ? "you sent the value the stream already holds" : "your value is not bytewise greater than the one the stream holds"}. Nothing was appended.`,
    compare: { label: "Stream-Seq", sent, stored, storedLabel: "Stream-Last-Seq (stored)" },
    causes: [
      {
        title: "Another writer committed first",
        text: `Since you read, another append stored ${stored}. Read on from where you stopped${next ? ` to Stream-Next-Offset ${next}` : ""}, count the new events, check your commit against them, and retry with your count plus theirs.`,
        likely: ownLast !== undefined && !own ? true : undefined,
      },
      {
        title: "Your own value is stale",
        text: `${stored} may be yours: an append of yours that committed (its answer lost, or retried after success), or a count that left out your own last commit. Read to the tail and count again before sending; if your commit is already in the log, don't send it twice.`,
        likely: own || undefined,
      },
    ],
    next: widths ? `The two values differ in width, and the comparison is bytewise: pad every value to the same width (20 digits).` : undefined,
    rules: ["seq-409", "prefix-5", "prefix-lost-response"],
  };
}

function incarnationMismatch(ex: Exchange, history: Exchange[]): Cause {
  const sent = requestHeader(ex, "stream-incarnation") ?? "";
  const current = responseHeader(ex, "stream-incarnation");
  const seenBefore = samePath(ex, history).some((h) => getHeader(h.response?.headers, "stream-incarnation") === sent);
  const missing = current === undefined;
  return {
    outcome: "412",
    headline: missing
      ? "Refused: you sent Stream-Incarnation for a stream that does not exist, so nothing was created."
      : "Refused: the Stream-Incarnation you sent is not this stream's. Nothing was applied.",
    compare: missing ? undefined : { label: "Stream-Incarnation", sent, stored: current, storedLabel: "current (Stream-Incarnation)" },
    causes: [
      {
        title: "The stream was deleted and recreated",
        text: "A DELETE and a PUT, or TTL expiry and a PUT, made a new stream at this URL. Offsets, producer state and Stream-Seq you kept belong to the old one: discard them, read the new stream from its start, and keep its token.",
        likely: seenBefore || undefined,
      },
      {
        title: "The token was never this stream's",
        text: "A token from another stream, a typo, or a made-up value: the server compares tokens for equality only.",
      },
    ],
    rules: ["inc-send", "inc-404", "inc-vs-409"],
  };
}

function unauthorized(ex: Exchange): Cause {
  const c = parseBearerChallenge(responseHeader(ex, "www-authenticate"));
  const refused = c?.error === "invalid_token";
  return {
    outcome: "401",
    headline: refused
      ? `The server refused the token${c?.description ? ` (${c.description})` : ""}: unknown, expired, or for another server. Nothing was done.`
      : "This server needs a bearer token for this, and the request carried none. Nothing was done.",
    next: "Enter a token in the console (it asks, and keeps it for this tab only); scripts send Authorization: Bearer $URSA_TOKEN.",
    rules: [],
  };
}

function insufficientScope(ex: Exchange, access: AccessView | null): Cause {
  const scope = parseBearerChallenge(responseHeader(ex, "www-authenticate"))?.scope ?? "another";
  const has = access ? access.scopes.join(", ") || "none" : undefined;
  return {
    outcome: "403-scope",
    headline: `Not allowed with this token: this needs the ${scope} scope${has ? `, and the token has ${has}` : ""}. Nothing was changed.`,
    next: scope === "admin" ? "Deletes, retention and bucket changes need admin: ask for a token with it." : `Ask for a token with the ${scope} scope on this bucket.`,
    rules: [],
  };
}

/** Why a token limited to `buckets` gets 404 for everything in `bucket` (docs/security.md). */
export function concealmentText(buckets: string[], bucket: string): string {
  return `This token can see only ${buckets.join(", ") || "no bucket"}. For anything in bucket ${bucket} the server answers 404 whether it exists or not, so that a token never learns which other buckets there are.`;
}

/** A 404 for a bucket the token cannot see: the server answers it whether or not the bucket exists. */
function concealed(ex: Exchange, access: AccessView | null): Cause | null {
  const bucket = parsePath(ex.request.path)?.bucket;
  if (!access?.authenticated || access.buckets === null || bucket === undefined || access.buckets.includes(bucket)) return null;
  return { outcome: "not-found", headline: `404, and this token cannot tell you more. ${concealmentText(access.buckets, bucket)}`, rules: [] };
}

function gone(ex: Exchange): Cause {
  const earliest = responseHeader(ex, "stream-earliest-offset");
  return {
    outcome: "410-gone",
    headline: `Below the retained floor: retention trimmed the start of this stream${earliest ? `, which is now readable from ${earliest}` : ""}. Even offset=-1 answers 410.`,
    next: "Recover through bootstrap (GET …/bootstrap): the snapshot stands for everything before the floor, and the messages after it follow. A prefix-count writer takes its count from the snapshot.",
    rules: ["prefix-3"],
  };
}

export function causeOf(ex: Exchange, history: Exchange[] = [], access: AccessView | null = null): Cause {
  const outcome = classify(ex);
  const res = ex.response;
  switch (outcome) {
    case "401":
      return unauthorized(ex);
    case "403-scope":
      return insufficientScope(ex, access);
    case "410-gone":
      return gone(ex);
    case "409-snapshot":
      return {
        outcome,
        headline: `Snapshot or retention refused: ${ex.errorMessage ?? "it conflicts with the stream's snapshot or floor"}. Nothing was changed.`,
        next: "A snapshot must be at or past the visible one (and match Stream-Snapshot-Match when sent); the floor may only rise, and never past the snapshot.",
        rules: [],
      };
    case "409-seq":
      return seqConflict(ex, history);
    case "412":
      return incarnationMismatch(ex, history);
    case "409-producer":
      return {
        outcome,
        headline: `Producer-Seq out of order: the server expects ${responseHeader(ex, "producer-expected-seq") ?? "?"} from this producer and epoch, you sent ${requestHeader(ex, "producer-seq") ?? "?"}. Nothing was appended.`,
        next: "Send the expected Producer-Seq; a gap means an earlier append of this producer never arrived.",
        rules: ["seq-other-409", "seq-dedup"],
      };
    case "409-closed":
      return { outcome, headline: "The stream is closed (Stream-Closed: true): it accepts no more appends, and nothing was appended.", rules: ["seq-other-409"] };
    case "409-content-type":
      return {
        outcome,
        headline: `Content-Type ${requestHeader(ex, "content-type") ?? "(none)"} differs from the stream's; types are compared after normalization, parameters included. Nothing was appended.`,
        rules: ["seq-content-type"],
      };
    case "403-stale-epoch":
      return {
        outcome,
        headline: `Fenced: a newer owner's append with Producer-Epoch ${responseHeader(ex, "producer-epoch") ?? "?"} was accepted, so epoch ${requestHeader(ex, "producer-epoch") ?? "?"} may not append any more.`,
        rules: ["outbox-4"],
      };
    case "duplicate":
      return { outcome, headline: "A duplicate: this producer's append with this Producer-Seq was already accepted, so nothing new was written.", rules: ["seq-dedup"] };
    case "not-found":
      return concealed(ex, access) ?? {
        outcome,
        headline:
          requestHeader(ex, "stream-incarnation") !== undefined && ex.request.method !== "PUT"
            ? "No stream at this path (404), Stream-Incarnation or not: the header never turns a missing stream into 412."
            : "No stream at this path (404). Create it with a PUT first.",
        rules: requestHeader(ex, "stream-incarnation") !== undefined ? ["inc-404"] : [],
      };
    case "accepted": {
      const seq = requestHeader(ex, "stream-seq");
      return {
        outcome,
        headline: `Appended${seq !== undefined ? `; Stream-Seq ${seq} is now the stored value` : ""}. The tail is ${responseHeader(ex, "stream-next-offset") ?? "?"}.`,
        rules: seq !== undefined ? ["seq-check"] : ["seq-absent"],
      };
    }
    case "created": {
      const seq = requestHeader(ex, "stream-seq");
      return {
        outcome,
        headline: `Created, incarnation ${responseHeader(ex, "stream-incarnation") ?? "?"}${seq !== undefined ? `, with Stream-Seq ${seq} stored as the starting value` : ""}.`,
        rules: seq !== undefined ? ["seq-put", "prefix-seeded"] : ["inc-carry"],
      };
    }
    case "exists":
      return { outcome, headline: "The stream already exists with this configuration; nothing changed (a PUT on an existing stream ignores Stream-Seq).", rules: ["seq-put"] };
    case "deleted":
      return { outcome, headline: "Deleted. A PUT at this path would create a new incarnation, with a new token and no Stream-Seq or producer state.", rules: ["inc-intro"] };
    case "network":
      return { outcome, headline: `No answer: ${ex.networkError ?? "the request failed"}. It may or may not have been applied.`, rules: ["prefix-lost-response"] };
    default:
      return { outcome, headline: `${res?.status ?? ""} ${ex.errorCode ?? res?.statusText ?? ""}${ex.errorMessage ? `: ${ex.errorMessage}` : ""}`.trim(), rules: [] };
  }
}
