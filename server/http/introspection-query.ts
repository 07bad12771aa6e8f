// Query parameters of the console's introspection API: the stream list's sort and filters, the
// message index's position, and a message search. Anything malformed is 400 INVALID_QUERY.

import { fail, ok, type Parsed } from "../protocol/errors";
import { parseOffsetToken } from "../protocol/offsets";
import { BUCKET_SORT_KEYS, STREAM_SORT_KEYS, type BucketSortKey, type StreamFilters, type StreamSortKey } from "../introspection-api";
import { decodeCursor } from "../storage/browse-cursor";
import type { BrowseQuery, IndexPosition } from "../storage/introspection";
import type { SearchQuery } from "./message-search";

const LIMIT = /^[1-9][0-9]{0,3}$/;
const MS = /^(0|[1-9][0-9]{0,15})$/;

function oneOf<T extends string>(q: URLSearchParams, name: string, allowed: readonly T[], fallback: T): Parsed<T> {
  const raw = q.get(name);
  if (raw === null || raw === "") return ok(fallback);
  return (allowed as readonly string[]).includes(raw) ? ok(raw as T) : fail("INVALID_QUERY", `${name} must be one of ${allowed.join(", ")}`);
}

export function parseLimit(q: URLSearchParams, fallback: number, max: number): Parsed<number> {
  const raw = q.get("limit");
  if (raw === null) return ok(fallback);
  if (!LIMIT.test(raw) || Number(raw) > max) return fail("INVALID_QUERY", `limit must be an integer from 1 to ${max}`);
  return ok(Number(raw));
}

/** The bucket list's order: by ID, or by live readers (http/reader-routes.ts). */
export function parseBucketSort(url: URL): Parsed<BucketSortKey> {
  return oneOf<BucketSortKey>(url.searchParams, "sort", BUCKET_SORT_KEYS, "name");
}

export function parseBrowseQuery(url: URL): Parsed<BrowseQuery> {
  const q = url.searchParams;
  const sort = oneOf<StreamSortKey>(q, "sort", STREAM_SORT_KEYS, "name");
  if (!sort.ok) return sort;
  const order = oneOf(q, "order", ["asc", "desc"] as const, "asc");
  if (!order.ok) return order;
  const status = oneOf<StreamFilters["status"]>(q, "status", ["any", "open", "closed"], "any");
  if (!status.ok) return status;
  const producers = oneOf<StreamFilters["producers"]>(q, "producers", ["any", "with", "without"], "any");
  if (!producers.ok) return producers;
  const seq = oneOf<StreamFilters["seq"]>(q, "seq", ["any", "set", "unset"], "any");
  if (!seq.ok) return seq;
  const limit = parseLimit(q, 100, 1000);
  if (!limit.ok) return limit;
  const after = q.get("after");
  if (after !== null && decodeCursor(sort.value, after) === null) return fail("INVALID_QUERY", `after is not a cursor of a list sorted by ${sort.value}`);
  return ok({
    sort: sort.value,
    order: order.value,
    prefix: q.get("prefix") ?? "",
    contains: q.get("contains") ?? "",
    status: status.value,
    producers: producers.value,
    seq: seq.value,
    after,
    limit: limit.value,
  });
}

function position(raw: string, name: string): Parsed<number> {
  const parsed = parseOffsetToken(raw, false);
  if (!parsed.ok || parsed.value.kind !== "position") return fail("INVALID_QUERY", `${name} must be an offset (a byte position or a Stream-Next-Offset value)`);
  return ok(parsed.value.position);
}

/** Exactly one of from, before or at_ms; from the start when none is given. */
export function parseIndexPosition(url: URL): Parsed<IndexPosition> {
  const q = url.searchParams;
  const given = ["from", "before", "at_ms"].filter((k) => q.has(k));
  if (given.length > 1) return fail("INVALID_QUERY", "give one of from, before and at_ms");
  if (q.has("before")) {
    const p = position(q.get("before")!, "before");
    return p.ok ? ok({ before: p.value }) : p;
  }
  if (q.has("at_ms")) {
    const raw = q.get("at_ms")!;
    return MS.test(raw) ? ok({ atMs: Number(raw) }) : fail("INVALID_QUERY", "at_ms must be milliseconds since the epoch");
  }
  const p = position(q.get("from") ?? "0", "from");
  return p.ok ? ok({ from: p.value }) : p;
}

export function parseSearchQuery(url: URL): Parsed<SearchQuery> {
  const q = url.searchParams;
  const from = position(q.get("from") ?? "0", "from");
  if (!from.ok) return from;
  const limit = parseLimit(q, 100, 500);
  if (!limit.ok) return limit;
  const text = q.get("q") ?? "";
  const field = q.get("field") ?? "";
  if (field.split(".").some((k) => k === "") && field !== "") return fail("INVALID_QUERY", "field is a dotted path of keys, such as order.id");
  if (text === "" && field === "") return fail("INVALID_QUERY", "give q (a substring), field (a JSON field), or both");
  const matchCase = oneOf(q, "match_case", ["0", "1"] as const, "0");
  if (!matchCase.ok) return matchCase;
  return ok({ from: from.value, text, matchCase: matchCase.value === "1", field, value: q.get("value") ?? "", limit: limit.value });
}
