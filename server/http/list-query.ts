// `prefix`, `after` and `limit` for listings (spec §2.4).

import { fail, ok, type Parsed } from "../protocol/errors";
import type { ListQuery } from "../storage/store";

const LIMIT = /^[1-9][0-9]{0,3}$/;

export function parseListQuery(url: URL, defaultLimit: number): Parsed<ListQuery> {
  const q = url.searchParams;
  const rawLimit = q.get("limit");
  if (rawLimit !== null && (!LIMIT.test(rawLimit) || Number(rawLimit) > 1000)) {
    return fail("INVALID_QUERY", "limit must be an integer from 1 to 1000");
  }
  return ok({ prefix: q.get("prefix") ?? "", after: q.get("after"), limit: rawLimit === null ? defaultLimit : Number(rawLimit) });
}
