import { describe, expect, test } from "bun:test";
import { baseHeaders, EXPOSED_HEADERS, H, headerText, READ_REQUEST_HEADERS, WRITE_REQUEST_HEADERS } from "./headers";

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

// The lists derive from the one table of names; these are the sets browsers and the conformance
// suite depend on (spec §2.0 exposed headers, §2.19 preflight grants), pinned so that a flag
// dropped from the table shows here.
describe("the header lists", () => {
  test("exposed: every response header a client reads", () => {
    expect(new Set(EXPOSED_HEADERS)).toEqual(
      new Set([
        "Content-Type", "ETag", "Location", "Retry-After", "Stream-Next-Offset", "Stream-Up-To-Date", "Stream-Closed", "Stream-Cursor",
        "Stream-Incarnation", "Stream-Last-Seq", "Stream-TTL", "Stream-Expires-At", "Stream-Earliest-Offset", "Stream-Retained-Offset",
        "Stream-Snapshot-Offset", "Stream-Snapshot-Digest", "Stream-Data-Content-Type", "Stream-SSE-Data-Encoding", "Producer-Epoch",
        "Producer-Seq", "Producer-Expected-Seq", "Producer-Received-Seq", "WWW-Authenticate",
      ]),
    );
    expect(baseHeaders().get(H.exposeHeaders)).toBe(EXPOSED_HEADERS.join(", "));
  });

  test("request headers a preflight may grant: reads, and reads with writes", () => {
    expect(new Set(READ_REQUEST_HEADERS)).toEqual(new Set(["authorization", "if-none-match", "last-event-id", "stream-incarnation"]));
    expect(new Set(WRITE_REQUEST_HEADERS)).toEqual(
      new Set([
        ...READ_REQUEST_HEADERS, "content-type", "prefer", "stream-seq", "stream-ttl", "stream-expires-at", "stream-closed", "stream-attrs",
        "stream-record-match", "stream-snapshot-match", "producer-id", "producer-epoch", "producer-seq", "stream-forked-from",
        "stream-fork-offset", "stream-fork-sub-offset",
      ]),
    );
  });

  test("each name is spelled once", () => {
    const names = Object.values(H).map((n) => n.toLowerCase());
    expect(names.length).toBe(new Set(names).size);
  });
});
