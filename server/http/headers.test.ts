import { describe, expect, test } from "bun:test";
import { headerText } from "./headers";

/** What Bun gives for a header whose octets on the wire were `bytes`: one character per octet. */
const asReceived = (bytes: Uint8Array) => Buffer.from(bytes).toString("latin1");

describe("headerText", () => {
  test("UTF-8 octets are read as UTF-8", () => {
    expect(headerText(asReceived(new TextEncoder().encode('{"title":"café ✓ 🐻"}')))).toBe('{"title":"café ✓ 🐻"}');
  });

  test("octets that are not UTF-8 stay as they came: a lone é from a browser's fetch is é", () => {
    expect(headerText(asReceived(new Uint8Array([0x63, 0x61, 0x66, 0xe9])))).toBe("café");
  });

  test("ASCII is returned untouched", () => {
    const ascii = '{"title":"plain \\u00e9"}';
    expect(headerText(ascii)).toBe(ascii);
  });
});
