// Stream attributes (spec §2.12): an object with an optional string `title` and an optional
// object `metadata`; other fields are accepted and not stored; `{}` clears.

import { fail, ok, type Parsed } from "./errors";

export const MAX_ATTRS_BYTES = 16 * 1024;

/** The normalized JSON text to store, or null for "no attributes". */
export function parseAttrs(raw: string): Parsed<string | null> {
  if (Buffer.byteLength(raw, "utf8") > MAX_ATTRS_BYTES) {
    return fail("INVALID_STREAM_ATTRS", `attributes are larger than ${MAX_ATTRS_BYTES} bytes`);
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return fail("INVALID_STREAM_ATTRS", "attributes are not valid JSON");
  }
  if (!isObject(value)) return fail("INVALID_STREAM_ATTRS", "attributes must be a JSON object");
  const kept: { title?: string; metadata?: Record<string, unknown> } = {};
  if (value.title !== undefined) {
    if (typeof value.title !== "string") return fail("INVALID_STREAM_ATTRS", "attribute `title` must be a string");
    kept.title = value.title;
  }
  if (value.metadata !== undefined) {
    if (!isObject(value.metadata)) return fail("INVALID_STREAM_ATTRS", "attribute `metadata` must be an object");
    kept.metadata = value.metadata;
  }
  return ok(Object.keys(kept).length === 0 ? null : JSON.stringify(kept));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
