import { describe, expect, test } from "bun:test";
import { splitJsonArray, messagesWithOffsets } from "./jsonArray";
import { inlineJson, prettyJson } from "./jsonPretty";
import { shellQuote, toCurl, toFetch } from "./snippets";
import { compareBytewise, incrementSeq, judgeSeq, nonPrintable, padSeq } from "./streamSeq";
import { displayHeaderName } from "./headers";
import { offsetPosition, offsetToken, formatBytes } from "./offsets";
import { parseErrorBody, send } from "./exchange";

describe("splitJsonArray", () => {
  test("splits top-level elements only, keeping their text exactly", () => {
    expect(splitJsonArray('[{"a":[1,2]},"x,y",1e400,18446744073709551617,[[]],"q\\"]"]')).toEqual([
      '{"a":[1,2]}',
      '"x,y"',
      "1e400",
      "18446744073709551617",
      "[[]]",
      '"q\\"]"',
    ]);
    expect(splitJsonArray("[]")).toEqual([]);
    expect(() => splitJsonArray("{}")).toThrow();
  });
  test("offsets count UTF-8 bytes plus one LF per message", () => {
    expect(messagesWithOffsets(["1", '"€"', "{}"], 10).map((m) => m.position)).toEqual([10, 12, 18]);
  });
});

describe("inlineJson", () => {
  test("spaces after colons and commas outside strings only, numbers kept", () => {
    expect(inlineJson('{"b":1e400,"a":[1,{}],"s":"x,:y \\" ,"}')).toBe('{"b": 1e400, "a": [1, {}], "s": "x,:y \\" ,"}');
  });
  test("long values end in an ellipsis", () => {
    expect(inlineJson(JSON.stringify({ a: "x".repeat(50) }), 20)).toBe('{"a": "xxxxxxxxxxxx…');
  });
});

describe("prettyJson", () => {
  test("re-indents without reparsing numbers or reordering keys", () => {
    expect(prettyJson('{"b":1e400,"a":[1,{}],"s":"x, {y}"}')).toBe('{\n  "b": 1e400,\n  "a": [\n    1,\n    {}\n  ],\n  "s": "x, {y}"\n}');
  });
});

describe("snippets", () => {
  const req = {
    method: "POST" as const,
    path: "/demo/run-42",
    headers: [
      ["Content-Type", "application/json"],
      ["Stream-Seq", "00000000000000000003"],
    ] as [string, string][],
    body: `[{"it's":1}]`,
  };
  test("curl quotes every part and keeps header order", () => {
    expect(toCurl(req, "http://127.0.0.1:4437")).toBe(
      `curl -i -X POST 'http://127.0.0.1:4437/demo/run-42' -H 'Content-Type: application/json' -H 'Stream-Seq: 00000000000000000003' --data-binary '[{"it'\\''s":1}]'`,
    );
    expect(shellQuote("a'b")).toBe(`'a'\\''b'`);
  });
  test("curl suppresses its default Content-Type when the request had none", () => {
    expect(toCurl({ method: "POST", path: "/d/s", headers: [], body: "x" }, "http://h")).toContain(`-H 'Content-Type:' --data-binary 'x'`);
  });
  test("HEAD uses --head and GET has no -X", () => {
    expect(toCurl({ method: "HEAD", path: "/d/s", headers: [] }, "http://h")).toBe(`curl -i --head 'http://h/d/s'`);
    expect(toCurl({ method: "GET", path: "/d/s?offset=-1", headers: [] }, "http://h")).toBe(`curl -i 'http://h/d/s?offset=-1'`);
  });
  test("fetch snippet carries the same method, headers and body", () => {
    const s = toFetch(req, "http://h");
    expect(s).toContain(`fetch("http://h/demo/run-42"`);
    expect(s).toContain(`"Stream-Seq": "00000000000000000003"`);
    expect(s).toContain(`body: "[{\\"it's\\":1}]"`);
  });
});

describe("Stream-Seq rules", () => {
  test('bytewise comparison: "10" < "9", and padding fixes it', () => {
    expect(compareBytewise("10", "9")).toBe(-1);
    expect(compareBytewise(padSeq(10), padSeq(9))).toBe(1);
    expect(compareBytewise("B", "a")).toBe(-1);
    expect(compareBytewise("abc", "abc")).toBe(0);
    expect(compareBytewise("ab", "abc")).toBe(-1);
  });
  test("printable ASCII only: other bytes make the header ignored", () => {
    expect(nonPrintable("00\t1é")).toEqual([2, 4]);
    expect(judgeSeq("0001é").kind).toBe("ignored");
  });
  test("256-byte cap, counted in bytes", () => {
    expect(judgeSeq("x".repeat(256)).kind).toBe("ok");
    expect(judgeSeq("x".repeat(257))).toEqual({ kind: "too-long", bytes: 257 });
  });
  test("numbers that are not 20 digits wide are flagged", () => {
    expect(judgeSeq("42")).toEqual({ kind: "not-fixed-width", width: 2 });
    expect(judgeSeq(padSeq(42)).kind).toBe("ok");
  });
  test("increment keeps the width", () => {
    expect(incrementSeq("0099")).toBe("0100");
    expect(incrementSeq("abc")).toBeUndefined();
  });
});

describe("small helpers", () => {
  test("header display names", () => {
    expect(displayHeaderName("stream-last-seq")).toBe("Stream-Last-Seq");
    expect(displayHeaderName("stream-ttl")).toBe("Stream-TTL");
  });
  test("offset tokens", () => {
    expect(offsetPosition("0000000000000000_0000000000000042")).toBe(42);
    expect(offsetPosition("now")).toBeUndefined();
    expect(offsetToken(42)).toBe("0000000000000000_0000000000000042");
    expect(formatBytes(1536)).toBe("1.5 KiB");
  });
  test("error bodies", () => {
    expect(parseErrorBody('{"error":{"code":"STREAM_SEQ_CONFLICT","message":"m"}}')).toEqual({ code: "STREAM_SEQ_CONFLICT", message: "m" });
    expect(parseErrorBody("[1]")).toBeUndefined();
  });
});

describe("send", () => {
  test("a 409 is data, not an exception, with its error code", async () => {
    const fetchImpl = (async () =>
      new Response(JSON.stringify({ error: { code: "STREAM_SEQ_CONFLICT", message: "m" } }), {
        status: 409,
        headers: { "Stream-Last-Seq": "00000000000000000003" },
      })) as unknown as typeof fetch;
    const ex = await send({ method: "POST", path: "/d/s", headers: [], body: "[1]" }, { origin: "http://h", fetchImpl });
    expect(ex.response!.status).toBe(409);
    expect(ex.errorCode).toBe("STREAM_SEQ_CONFLICT");
    expect(ex.response!.headers).toContainEqual(["stream-last-seq", "00000000000000000003"]);
  });
  test("a network failure is data too", async () => {
    const fetchImpl = (async () => {
      throw new TypeError("Failed to fetch");
    }) as unknown as typeof fetch;
    const ex = await send({ method: "GET", path: "/d/s", headers: [] }, { origin: "http://h", fetchImpl });
    expect(ex.response).toBeUndefined();
    expect(ex.networkError).toBe("Failed to fetch");
  });
  test("maxReadMs keeps what an endless (SSE) body sent so far", async () => {
    const enc = new TextEncoder();
    const fetchImpl = (async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode("event: control\ndata:{}\n\n"));
          },
        }),
        { status: 200 },
      )) as unknown as typeof fetch;
    const ex = await send({ method: "GET", path: "/d/s?offset=now&live=sse", headers: [] }, { origin: "http://h", fetchImpl, maxReadMs: 50 });
    expect(ex.response!.bodyText).toBe("event: control\ndata:{}\n\n");
    expect(ex.bodyCut).toContain("50 ms");
  });
});
