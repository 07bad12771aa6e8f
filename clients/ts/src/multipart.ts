// GET {stream}/bootstrap answers multipart/mixed (RFC 2046). Parsed byte for byte, on Uint8Array
// alone so it runs in every runtime: a payload may hold CR, LF and dashes, so parts are found by
// the delimiter CRLF "--" boundary, never by lines.

export interface Part {
  contentType: string;
  body: Uint8Array;
}

const ascii = (s: string) => new TextEncoder().encode(s);

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const last = haystack.length - needle.length;
  outer: for (let i = from; i <= last; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

export function parseMultipart(body: Uint8Array, boundary: string): Part[] {
  const open = ascii(`--${boundary}\r\n`);
  const delimiter = ascii(`\r\n--${boundary}`);
  const blankLine = ascii("\r\n\r\n");
  if (indexOf(body.subarray(0, open.length), open, 0) !== 0) throw new SyntaxError("multipart body does not start with its boundary");
  const parts: Part[] = [];
  let at = open.length;
  for (;;) {
    const headerEnd = indexOf(body, blankLine, at);
    if (headerEnd < 0) throw new SyntaxError("multipart part without a blank line after its headers");
    const headers = new TextDecoder("latin1").decode(body.subarray(at, headerEnd));
    const contentType = /^content-type:\s*(.+)$/im.exec(headers)?.[1]?.trim() ?? "text/plain";
    const end = indexOf(body, delimiter, headerEnd + 4);
    if (end < 0) throw new SyntaxError("multipart part without a closing boundary");
    parts.push({ contentType, body: body.subarray(headerEnd + 4, end) });
    const after = end + delimiter.length;
    if (body[after] === 0x2d && body[after + 1] === 0x2d) return parts;
    at = after + 2;
  }
}
