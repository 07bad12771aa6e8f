// Stream attributes (spec §2.11–§2.12): an object with an optional string `title` and an optional
// object `metadata`; other fields are accepted and not stored; `{}` clears. A change moves no
// offset, ETag or read result, is allowed after close and does not renew the TTL.

import { fail, isProtocolError, ok, type Parsed, type ProtocolError } from "./errors";
import { checkAddressed } from "./read";
import type { StreamState } from "./state";

export const MAX_ATTRS_BYTES = 16 * 1024;

/**
 * The normalized JSON text to store, or null for "no attributes". Object keys inside `metadata`
 * are sorted, as Ursula's serde maps sort them, so two PUTs of the same attributes written in a
 * different member order match (the re-PUT idempotency check compares this text).
 */
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
  const kept: { title?: string; metadata?: unknown } = {};
  if (value.title !== undefined) {
    if (typeof value.title !== "string") return fail("INVALID_STREAM_ATTRS", "attribute `title` must be a string");
    kept.title = value.title;
  }
  if (value.metadata !== undefined) {
    if (!isObject(value.metadata)) return fail("INVALID_STREAM_ATTRS", "attribute `metadata` must be an object");
    kept.metadata = sortedKeys(value.metadata);
  }
  return ok(Object.keys(kept).length === 0 ? null : JSON.stringify(kept));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!isObject(value)) return value;
  // Keys are the client's: on a plain `{}`, `__proto__` would set the prototype and vanish.
  const out: Record<string, unknown> = Object.create(null);
  for (const key of Object.keys(value).sort()) out[key] = sortedKeys(value[key]);
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export type AttrsDecision = ProtocolError | { kind: "unchanged"; state: StreamState } | { kind: "replace"; state: StreamState; attrs: string | null };

/**
 * PUT …/attrs: 404, 410 (soft-deleted), 412, then replace unless equal. `current` is the stored
 * text of the state's attributes (null when none are set or there is no stream), which the engine
 * loads inside the transaction before asking.
 */
export function decideAttrsPut(state: StreamState | undefined, incarnation: string | null, wanted: string | null, current: string | null): AttrsDecision {
  const checked = checkAddressed(state, incarnation);
  if (isProtocolError(checked)) return checked;
  return current === wanted ? { kind: "unchanged", state: checked } : { kind: "replace", state: checked, attrs: wanted };
}
