// Byte limits on identifiers are in UTF-8 bytes; counting them without encoding keeps the
// per-request path free of a TextEncoder and a buffer for every header checked.

/** The length of `s` encoded as UTF-8 (a lone surrogate counts as U+FFFD, as TextEncoder writes it). */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
