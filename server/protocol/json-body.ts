// JSON-mode payloads (spec §1.6): validate, strip insignificant whitespace while keeping the
// writer's text (member order, number spelling), and flatten one level of a top-level array.
// Each message is stored as one compact JSON text followed by LF; offsets count those bytes.

import { fail, ok, type Parsed } from "./errors";

export const MAX_JSON_DEPTH = 128;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Turn a request body into stored messages. `allowEmptyArray` is true for PUT, where `[]`
 * creates an empty stream, and false for POST, where it is an error.
 */
export function jsonMessages(body: Uint8Array, allowEmptyArray: boolean): Parsed<Uint8Array[]> {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return fail("INVALID_JSON", "body is not valid UTF-8");
  }
  try {
    JSON.parse(text);
  } catch (e) {
    return fail("INVALID_JSON", `body is not valid JSON: ${(e as Error).message}`);
  }
  const scanned = compactAndSplit(text);
  if (!scanned.ok) return scanned;
  const { compact, elements } = scanned.value;
  // Already compact (the common case): the stored bytes are the body and an LF, no re-encoding.
  if (elements === null) return ok([compact === text ? withLf(body) : encoder.encode(compact + "\n")]);
  if (elements.length === 0) {
    return allowEmptyArray ? ok([]) : fail("EMPTY_JSON_ARRAY", "an empty JSON array appends nothing; send at least one element");
  }
  return ok(elements.map((e) => encoder.encode(e + "\n")));
}

function withLf(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 1);
  out.set(body);
  out[body.length] = 10;
  return out;
}

interface Scan {
  compact: string;
  /** The top-level array's elements as compact text, or null when the value is not an array. */
  elements: string[] | null;
}

// The input has already passed JSON.parse, so this only has to track strings, depth and commas.
function compactAndSplit(text: string): Parsed<Scan> {
  let out = "";
  let depth = 0;
  let inString = false;
  let isArray = false;
  let elementStart = -1;
  const elements: string[] = [];
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      out += text.slice(runStart, i);
      runStart = i + 1;
      continue;
    }
    if (c === 34) {
      inString = true;
      continue;
    }
    if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth > MAX_JSON_DEPTH) return fail("INVALID_JSON", `JSON nests deeper than ${MAX_JSON_DEPTH} levels`);
      if (depth === 1 && c === 91) {
        isArray = true;
        out += text.slice(runStart, i + 1);
        runStart = i + 1;
        elementStart = out.length;
      }
      continue;
    }
    if (c === 93 /* ] */ || c === 125 /* } */) {
      if (depth === 1 && isArray) {
        out += text.slice(runStart, i);
        runStart = i;
        if (out.length > elementStart) elements.push(out.slice(elementStart));
      }
      depth--;
      continue;
    }
    if (c === 44 /* , */ && depth === 1 && isArray) {
      out += text.slice(runStart, i);
      runStart = i;
      elements.push(out.slice(elementStart));
      elementStart = out.length + 1;
    }
  }
  out += text.slice(runStart);
  return ok({ compact: out, elements: isArray ? elements : null });
}
