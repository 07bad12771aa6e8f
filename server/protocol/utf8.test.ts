import { expect, test } from "bun:test";
import fc from "fast-check";
import { utf8Length } from "./utf8";

test("utf8Length agrees with TextEncoder on any string, lone surrogates included", () => {
  const encoder = new TextEncoder();
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (s) => {
      expect(utf8Length(s)).toBe(encoder.encode(s).length);
    }),
    { numRuns: 2000 },
  );
  for (const s of ["", "a", "é", "€", "😀", "\ud800", "\udc00x", "a\ud83d"]) expect(utf8Length(s)).toBe(encoder.encode(s).length);
});
