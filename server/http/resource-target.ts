// Where a snapshot is published or the floor is moved (spec §2.13, §2.17): an offset in the path,
// or `?record=N` on the bare resource.

import { fail, ok, type Parsed } from "../protocol/errors";
import { parseOffsetToken } from "../protocol/offsets";
import type { ResourceTarget } from "../protocol/retention";

const RECORD = /^(0|[1-9][0-9]{0,15})$/;

/** An offset path segment. `-1` and `now` name no committed boundary here, so they are malformed (spec §3.2). */
export function parseOffsetSegment(arg: string): Parsed<number> {
  const parsed = parseOffsetToken(arg, false);
  if (!parsed.ok || parsed.value.kind !== "position") return fail("INVALID_OFFSET", `offset ${JSON.stringify(arg)} is malformed: use a Stream-Next-Offset value (-1 and now are not allowed here)`);
  return ok(parsed.value.position);
}

export function parseResourceTarget(arg: string | null, url: string): Parsed<ResourceTarget> {
  if (arg !== null) {
    const offset = parseOffsetSegment(arg);
    return offset.ok ? ok({ kind: "offset", offset: offset.value }) : offset;
  }
  const record = new URL(url).searchParams.get("record");
  if (record === null) return fail("INVALID_QUERY", "name the position: an offset in the path, or ?record=N");
  if (!RECORD.test(record) || !Number.isSafeInteger(Number(record))) return fail("INVALID_QUERY", "record must be a non-negative integer");
  return ok({ kind: "record", record: Number(record) });
}
