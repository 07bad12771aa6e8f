// Splits the body of a JSON-array read into the exact text of each message, without
// parsing values: the console must show numbers like 1e400 or 2^64 as the server stored
// them, and needs each message's text to compute its byte offset (stored bytes are the
// compact text plus one LF, spec §1.6).

export function splitJsonArray(text: string): string[] {
  const s = text.trim();
  if (!s.startsWith("[") || !s.endsWith("]")) throw new Error("not a JSON array");
  const out: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 1;
  for (let i = 1; i < s.length - 1; i++) {
    const c = s[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (c === "," && depth === 0) {
      out.push(s.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = s.slice(start, s.length - 1).trim();
  if (last.length || out.length) out.push(last);
  return out;
}

const utf8 = new TextEncoder();

/** Messages with the byte offset each starts at, given the read's start position. */
export function messagesWithOffsets(texts: string[], startPosition: number): { position: number; text: string }[] {
  let pos = startPosition;
  return texts.map((text) => {
    const m = { position: pos, text };
    pos += utf8.encode(text).length + 1;
    return m;
  });
}
