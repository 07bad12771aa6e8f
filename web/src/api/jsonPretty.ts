// Re-indents JSON text token by token. Unlike JSON.stringify(JSON.parse(x), null, 2) it
// keeps every number, key order and duplicate key exactly as stored.

/**
 * Walks JSON text: every character outside whitespace, with whether it belongs to a string
 * literal (quotes included; an escape comes as its two characters). `emit` returns false to stop.
 */
function eachToken(text: string, emit: (c: string, inString: boolean) => boolean | void): void {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '"') inString = false;
      if ((c === "\\" ? emit(c + (text[++i] ?? ""), true) : emit(c, true)) === false) return;
      continue;
    }
    if (c === " " || c === "\n" || c === "\t" || c === "\r") continue;
    if (c === '"') inString = true;
    if (emit(c, inString) === false) return;
  }
}

export function prettyJson(text: string, indent = "  "): string {
  let out = "";
  let depth = 0;
  // An opening bracket waits for the next token: "{}" and "[]" stay on one line.
  let open: string | null = null;
  const nl = () => "\n" + indent.repeat(depth);
  eachToken(text, (c, inString) => {
    if (open !== null) {
      const empty = !inString && (c === "}" || c === "]");
      if (!empty) depth++;
      out += empty ? open + c : open + nl();
      open = null;
      if (empty) return;
    }
    if (inString) out += c;
    else if (c === "{" || c === "[") open = c;
    else if (c === "}" || c === "]") {
      depth--;
      out += nl() + c;
    } else if (c === ",") out += "," + nl();
    else if (c === ":") out += ": ";
    else out += c;
  });
  return open === null ? out : out + open;
}

/**
 * One line, spaced for reading: a space after each colon and comma, nothing else changed
 * (`{"a":1,"b":[2,3]}` → `{"a": 1, "b": [2, 3]}`). Strings are copied as they are.
 */
export function inlineJson(text: string, max = 400): string {
  let out = "";
  eachToken(text, (c, inString) => {
    out += inString ? c : c === ":" ? ": " : c === "," ? ", " : c;
    return out.length < max;
  });
  return out.length >= max ? out.slice(0, max - 1) + "…" : out;
}
