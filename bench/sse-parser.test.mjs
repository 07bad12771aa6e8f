// The bench client's SSE parser: what it dispatches must not depend on how the bytes are cut.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sseParser } from "./lib/sse-parser.mjs";

function parse(chunks) {
  const events = [];
  const feed = sseParser((type, data) => events.push([type, data]));
  for (const c of chunks) feed(Buffer.from(c));
  return events;
}

const STREAM =
  ': keep-alive\n\nevent: data\ndata:[{"i":0}]\nid:0_4\n\nevent: control\ndata: {"streamNextOffset":"0_4"}\n\n' +
  "data:two\ndata:\ndata: lines\n\nevent: error\ndata:gone\n\ndata\n\n";
const EXPECTED = [
  ["data", '[{"i":0}]'],
  ["control", '{"streamNextOffset":"0_4"}'],
  ["message", "two\n\nlines"],
  ["error", "gone"],
  ["message", ""],
];

test("events, comments, multi-line data, a field without a value", () => {
  assert.deepEqual(parse([STREAM]), EXPECTED);
});

test("the same events whatever the chunking, down to single bytes, and with a UTF-8 character split", () => {
  const text = STREAM.replace("gone", "gon\u00e9");
  const expected = EXPECTED.map(([t, d]) => [t, d === "gone" ? "gon\u00e9" : d]);
  const bytes = Buffer.from(text);
  for (const size of [1, 2, 3, 7, 64]) {
    const chunks = [];
    for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
    assert.deepEqual(parse(chunks), expected, `chunks of ${size}`);
  }
});

test("CRLF and CR line endings, also when a CRLF is cut between chunks", () => {
  const crlf = STREAM.replaceAll("\n", "\r\n");
  assert.deepEqual(parse([crlf]), EXPECTED);
  const cut = crlf.indexOf("\r\n\r\n") + 1;
  assert.deepEqual(parse([crlf.slice(0, cut), crlf.slice(cut)]), EXPECTED);
  assert.deepEqual(parse([STREAM.replaceAll("\n", "\r")]), EXPECTED);
  for (const text of [crlf, STREAM.replaceAll("\n", "\r")]) assert.deepEqual(parse([...text]), EXPECTED);
});

test("an event is not dispatched before its blank line", () => {
  assert.deepEqual(parse(["event: data\ndata:1\n"]), []);
});
