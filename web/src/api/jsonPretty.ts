// Re-indents JSON text token by token. Unlike JSON.stringify(JSON.parse(x), null, 2) it
// keeps every number, key order and duplicate key exactly as stored.

export function prettyJson(text: string, indent = "  "): string {
  let out = "";
  let depth = 0;
  let inString = false;
  const nl = () => "\n" + indent.repeat(depth);
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === " " || c === "\n" || c === "\t" || c === "\r") continue;
    if (c === '"') {
      inString = true;
      out += c;
    } else if (c === "{" || c === "[") {
      const close = c === "{" ? "}" : "]";
      let j = i + 1;
      while (text[j] === " " || text[j] === "\n" || text[j] === "\t" || text[j] === "\r") j++;
      if (text[j] === close) {
        out += c + close;
        i = j;
      } else {
        depth++;
        out += c + nl();
      }
    } else if (c === "}" || c === "]") {
      depth--;
      out += nl() + c;
    } else if (c === ",") out += "," + nl();
    else if (c === ":") out += ": ";
    else out += c;
  }
  return out;
}

/**
 * One line, spaced for reading: a space after each colon and comma, nothing else changed
 * (`{"a":1,"b":[2,3]}` → `{"a": 1, "b": [2, 3]}`). Strings are copied as they are.
 */
export function inlineJson(text: string, max = 400): string {
  let out = "";
  let inString = false;
  for (let i = 0; i < text.length && out.length < max; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === "\\") out += text[++i] ?? "";
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    if (c === " " || c === "\n" || c === "\t" || c === "\r") continue;
    out += c === ":" ? ": " : c === "," ? ", " : c;
  }
  return out.length >= max ? out.slice(0, max - 1) + "…" : out;
}
