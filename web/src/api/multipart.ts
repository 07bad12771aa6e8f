// multipart/mixed (RFC 2046 §5.1), as GET …/bootstrap answers: the snapshot part, then one part
// per message. Parts are found by the delimiter CRLF "--" boundary in the bytes, never by lines,
// because a payload may hold CR, LF and dashes of its own.

export interface Part {
  contentType: string;
  /** The part's header lines, as sent. */
  headers: [string, string][];
  body: Uint8Array;
}

/** The boundary parameter of a multipart Content-Type, or null. */
export function boundaryOf(contentType: string | undefined): string | null {
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
  return m ? (m[1] ?? m[2]!) : null;
}

const ascii = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

function indexOf(hay: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  outer: for (let i = hay.indexOf(first!, from); i >= 0 && i + needle.length <= hay.length; i = hay.indexOf(first!, i + 1)) {
    for (let j = 1; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return s;
}

/** Every part, byte for byte; throws when the body is not multipart framed with this boundary. */
export function parseMultipart(body: Uint8Array, boundary: string): Part[] {
  const open = ascii(`--${boundary}\r\n`);
  const delimiter = ascii(`\r\n--${boundary}`);
  if (indexOf(body.subarray(0, open.length), open, 0) !== 0) throw new Error("the body does not start with its boundary");
  const blank = ascii("\r\n\r\n");
  const parts: Part[] = [];
  let at = open.length;
  for (;;) {
    // A part without header lines starts with its blank line.
    const bare = body[at] === 0x0d && body[at + 1] === 0x0a;
    const headerEnd = bare ? at - 2 : indexOf(body, blank, at);
    if (headerEnd < 0) throw new Error(`part ${parts.length + 1} has no blank line after its headers`);
    const headers = latin1(body.subarray(at, Math.max(at, headerEnd)))
      .split("\r\n")
      .filter(Boolean)
      .map((line): [string, string] => {
        const i = line.indexOf(":");
        return i < 0 ? [line, ""] : [line.slice(0, i).trim(), line.slice(i + 1).trim()];
      });
    const end = indexOf(body, delimiter, headerEnd + 4);
    if (end < 0) throw new Error(`part ${parts.length + 1} has no closing boundary`);
    const contentType = headers.find(([k]) => k.toLowerCase() === "content-type")?.[1] ?? "text/plain";
    parts.push({ contentType, headers, body: body.subarray(headerEnd + 4, end) });
    const after = end + delimiter.length;
    if (body[after] === 0x2d && body[after + 1] === 0x2d) return parts;
    if (body[after] !== 0x0d || body[after + 1] !== 0x0a) throw new Error(`part ${parts.length} is not followed by CRLF or the closing "--"`);
    at = after + 2;
  }
}
