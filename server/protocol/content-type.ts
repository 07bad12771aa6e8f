// Content types (spec §1.5): normalization keeps parameters, so `application/json; charset=utf-8`
// and `application/json` are different types [CW].

import { fail, ok, type Parsed } from "./errors";

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
const PARAM_VALUE = /^(?:[!#$%&'*+.^_`|~0-9a-z-]+|"(?:[^"\\\r\n]|\\.)*")$/;

// Clients send the same few Content-Type strings on every append; remembering their parse keeps
// it off the hot path. Bounded, so arbitrary strings cannot grow it.
const parsedTypes = new Map<string, Parsed<string>>();
const MAX_REMEMBERED_TYPES = 256;

/** Split on `;`, trim, drop empties, lowercase everything (parameter values too), rejoin with "; ". */
export function parseContentType(raw: string): Parsed<string> {
  let parsed = parsedTypes.get(raw);
  if (parsed === undefined) {
    if (parsedTypes.size >= MAX_REMEMBERED_TYPES) parsedTypes.clear();
    parsedTypes.set(raw, (parsed = parseContentTypeUncached(raw)));
  }
  return parsed;
}

function parseContentTypeUncached(raw: string): Parsed<string> {
  const pieces = raw
    .split(";")
    .map((p) => p.trim().toLowerCase())
    .filter((p) => p.length > 0);
  const [media, ...params] = pieces;
  if (media === undefined) return fail("INVALID_CONTENT_TYPE", "Content-Type is empty");
  const slash = media.indexOf("/");
  if (slash <= 0 || !TOKEN.test(media.slice(0, slash)) || !TOKEN.test(media.slice(slash + 1))) {
    return fail("INVALID_CONTENT_TYPE", `Content-Type ${JSON.stringify(raw)} is not type/subtype`);
  }
  for (const param of params) {
    const eq = param.indexOf("=");
    const name = param.slice(0, eq).trim();
    const value = param.slice(eq + 1).trim();
    if (eq <= 0 || !TOKEN.test(name) || !PARAM_VALUE.test(value)) {
      return fail("INVALID_CONTENT_TYPE", `Content-Type parameter ${JSON.stringify(param)} is malformed`);
    }
  }
  return ok(pieces.join("; "));
}

export function mediaType(normalized: string): string {
  const semi = normalized.indexOf(";");
  return semi < 0 ? normalized : normalized.slice(0, semi);
}

export function isJsonType(normalized: string): boolean {
  return mediaType(normalized) === "application/json";
}

/** SSE sends text and JSON as text; every other type is base64 (spec §1.5, §4.4). */
export function isSseTextType(normalized: string): boolean {
  return normalized.startsWith("text/") || isJsonType(normalized);
}
