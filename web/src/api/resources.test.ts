// Frames, multipart, paths and scopes, and tokens kept out of snippets: the pieces the
// console's resource and access features are built from.
import { describe, expect, test } from "bun:test";
import { decodeFrames, encodeFrames, parseAcks } from "./frames";
import { boundaryOf, parseMultipart } from "./multipart";
import { readBootstrap } from "./bootstrap";
import { parsePath, requiredScope, streamPathOf } from "./paths";
import { maskQueryToken, parseBearerChallenge } from "./credentials";
import { printfBytes, shellWord, toCurl, toEventSource, toFetch } from "./snippets";
import { sh } from "../state/testing/shell";
import type { Exchange } from "./types";

const text = new TextDecoder();

describe("append-batch frames", () => {
  test("each frame is a 4-byte big-endian length, then its UTF-8 bytes", () => {
    const body = encodeFrames(['{"n":1}', "[2,3]", "é"]);
    expect([...body.subarray(0, 4)]).toEqual([0, 0, 0, 7]);
    expect(text.decode(body.subarray(4, 11))).toBe('{"n":1}');
    expect([...body.subarray(11, 15)]).toEqual([0, 0, 0, 5]);
    // "é" is 2 bytes: the length counts bytes, not characters.
    expect([...body.subarray(20, 24)]).toEqual([0, 0, 0, 2]);
    expect(body.length).toBe(4 + 7 + 4 + 5 + 4 + 2);
    expect(decodeFrames(body).map((f) => text.decode(f))).toEqual(['{"n":1}', "[2,3]", "é"]);
  });
  test("a length of 256 and more uses the high bytes; a cut-off frame is refused", () => {
    const long = "x".repeat(70_000);
    const body = encodeFrames([long]);
    expect([...body.subarray(0, 4)]).toEqual([0, 1, 0x11, 0x70]);
    expect(() => decodeFrames(body.subarray(0, 100))).toThrow("declares 70000 bytes");
    expect(() => decodeFrames(new Uint8Array([0, 0]))).toThrow("cut off");
  });
  test("acks, and bodies that are not acks", () => {
    expect(parseAcks('[{"status":204,"stream_next_offset":"0000000000000000_0000000000000008"},{"status":409,"error_code":"STREAM_CLOSED"}]')!.map((a) => a.status)).toEqual([204, 409]);
    expect(parseAcks('{"error":{"code":"BAD_REQUEST"}}')).toBeNull();
    expect(parseAcks("[1]")).toBeNull();
  });
});

describe("multipart bootstrap", () => {
  test("parts are split by the delimiter in the bytes: CR, LF, dashes and binary in payloads survive", async () => {
    // GET /demo/bin/bootstrap from dist/ursa: a text/plain snapshot "state\r\n--not-a-boundary\r\n",
    // then the messages 00 01 0d 0a 2d 2d ff fe and "x\r\n\r\ny".
    const body = new Uint8Array(await Bun.file(new URL("./testing/bootstrap-binary.multipart", import.meta.url)).arrayBuffer());
    const parts = parseMultipart(body, "ursa-bootstrap-8b3bd1f6ac605b3611463d639616ca40");
    expect(parts.map((p) => p.contentType)).toEqual(["text/plain", "application/octet-stream", "application/octet-stream"]);
    expect(text.decode(parts[0]!.body)).toBe("state\r\n--not-a-boundary\r\n");
    expect([...parts[1]!.body]).toEqual([0x00, 0x01, 0x0d, 0x0a, 0x2d, 0x2d, 0xff, 0xfe]);
    expect(text.decode(parts[2]!.body)).toBe("x\r\n\r\ny");
  });
  test("the boundary from Content-Type; malformed bodies are refused, not guessed at", () => {
    expect(boundaryOf("multipart/mixed; boundary=ursa-bootstrap-ab")).toBe("ursa-bootstrap-ab");
    expect(boundaryOf('multipart/mixed; boundary="q b"')).toBe("q b");
    expect(boundaryOf("application/json")).toBeNull();
    const enc = new TextEncoder();
    expect(() => parseMultipart(enc.encode("nope"), "b")).toThrow("does not start");
    expect(() => parseMultipart(enc.encode("--b\r\nContent-Type: x\r\n\r\nbody"), "b")).toThrow("no closing boundary");
    // A part without header lines is text/plain (RFC 2046) and still splits.
    expect(parseMultipart(enc.encode("--b\r\n\r\nhi\r\n--b--\r\n"), "b").map((p) => [p.contentType, text.decode(p.body)])).toEqual([["text/plain", "hi"]]);
  });
  test("readBootstrap: no snapshot is Stream-Snapshot-Offset -1 and an empty first part", () => {
    const body = "--b\r\nContent-Type: application/octet-stream\r\n\r\n\r\n--b\r\nContent-Type: application/json\r\n\r\n{\"n\":1}\r\n--b--\r\n";
    const ex: Exchange = {
      id: "1",
      origin: "http://h",
      startedAt: 0,
      durationMs: 0,
      request: { method: "GET", path: "/d/s/bootstrap", headers: [] },
      response: {
        status: 200,
        statusText: "OK",
        bodyText: body,
        headers: [
          ["content-type", "multipart/mixed; boundary=b"],
          ["stream-snapshot-offset", "-1"],
          ["stream-next-offset", "0000000000000000_0000000000000008"],
        ],
      },
    };
    const r = readBootstrap(ex);
    expect(r.ok && r.view.snapshot).toBeNull();
    expect(r.ok && r.view.messages.map((m) => text.decode(m.body))).toEqual(['{"n":1}']);
    expect(r.ok && r.view.upToDate).toBe(false);
  });
});

describe("paths and scopes", () => {
  test("a sub-resource names its stream", () => {
    expect(parsePath("/demo/run%2042/snapshot/0000000000000000_0000000000000046?x=1")).toEqual({
      bucket: "demo",
      stream: "run 42",
      streamPath: "/demo/run%2042",
      sub: "snapshot",
      arg: "0000000000000000_0000000000000046",
    });
    expect(streamPathOf("/demo/s/attrs")).toBe("/demo/s");
    // A stream may be called attrs: with two segments it is the stream.
    expect(streamPathOf("/demo/attrs")).toBe("/demo/attrs");
    expect(parsePath("/v1/stream/chat")).toMatchObject({ bucket: "_default", stream: "chat", sub: null });
    expect(parsePath("/__ursula/api/info")).toBeNull();
    expect(parsePath("/demo")).toMatchObject({ bucket: "demo", stream: null });
  });
  test("the scope a request needs, read from its method and path as the server reads it", () => {
    expect(requiredScope("GET", "/demo/s/bootstrap")).toEqual({ scope: "read", bucket: "demo" });
    expect(requiredScope("POST", "/demo/s/append-batch")).toEqual({ scope: "write", bucket: "demo" });
    expect(requiredScope("PUT", "/demo/s/snapshot/0000000000000000_0000000000000001")).toEqual({ scope: "write", bucket: "demo" });
    expect(requiredScope("PUT", "/demo/s/retention/0000000000000000_0000000000000001")).toEqual({ scope: "admin", bucket: "demo" });
    expect(requiredScope("DELETE", "/demo/s")).toEqual({ scope: "admin", bucket: "demo" });
    expect(requiredScope("PUT", "/demo")).toEqual({ scope: "admin", bucket: "demo" });
    expect(requiredScope("PUT", "/v1/stream/x")).toEqual({ scope: "write", bucket: "_default" });
  });
});

describe("tokens never reach a snippet", () => {
  test("the console's own token is $URSA_TOKEN, for the shell to fill in", () => {
    const curl = toCurl({ method: "GET", path: "/demo/s?offset=-1", headers: [] }, "http://h", { bearer: true });
    expect(curl).toBe(`curl -i 'http://h/demo/s?offset=-1' -H 'Authorization: Bearer '"$URSA_TOKEN"`);
    expect(sh(`URSA_TOKEN=s3cret; printf '%s\\n' ${curl.slice(curl.indexOf("-H ") + 3)}`)).toBe("Authorization: Bearer s3cret\n");
    const js = toFetch({ method: "GET", path: "/demo/s", headers: [] }, "http://h", { bearer: true });
    expect(js).toContain('"Authorization": `Bearer ${URSA_TOKEN}`');
    expect(js).toContain("process.env.URSA_TOKEN");
  });
  test("a token typed into a header or an access_token parameter is masked the same way", () => {
    const req = { method: "GET" as const, path: "/demo/s?offset=-1&access_token=abcdef0123456789&live=sse", headers: [["Authorization", "Bearer abcdef0123456789"]] as [string, string][] };
    const curl = toCurl(req, "http://h");
    expect(curl).not.toContain("abcdef0123456789");
    expect(curl).toContain(`'http://h/demo/s?offset=-1&access_token='"$URSA_TOKEN"'&live=sse'`);
    expect(toFetch(req, "http://h")).not.toContain("abcdef0123456789");
    expect(maskQueryToken("/a?access_token=x")).toBe("/a?access_token=$URSA_TOKEN");
    expect(shellWord("$URSA_TOKEN")).toBe('"$URSA_TOKEN"');
  });
  test("an EventSource carries the token in access_token, the only place it can", () => {
    expect(toEventSource("http://h", "/demo/s", { bearer: true })).toContain("new EventSource(`http://h/demo/s?offset=now&live=sse&access_token=${encodeURIComponent(URSA_TOKEN)}`)");
    expect(toEventSource("http://h", "/demo/s")).toContain('new EventSource("http://h/demo/s?offset=now&live=sse")');
  });
  test("Bearer challenges: error, description and scope", () => {
    expect(parseBearerChallenge('Bearer realm="ursa", error="insufficient_scope", scope="write"')).toEqual({ error: "insufficient_scope", scope: "write" });
    expect(parseBearerChallenge('Bearer realm="ursa", error="invalid_token", error_description="unknown \\"token\\""')).toEqual({ error: "invalid_token", description: 'unknown "token"' });
    expect(parseBearerChallenge('Basic realm="x"')).toBeNull();
    expect(parseBearerChallenge(null)).toBeNull();
  });
});

describe("a batch as curl", () => {
  test("printf writes the exact framed bytes, and the shell agrees", () => {
    const frames = ['{"n":"50%"}', "a\\b", "it's", "é"];
    const bytes = encodeFrames(frames);
    const cmd = toCurl({ method: "POST", path: "/d/s/append-batch", headers: [["Content-Type", "application/json"]], frames }, "http://h");
    expect(cmd.startsWith("printf '")).toBe(true);
    expect(cmd).toContain("| curl -i -X POST 'http://h/d/s/append-batch' -H 'Content-Type: application/json' --data-binary @-");
    const format = cmd.slice("printf ".length, cmd.indexOf(" | curl"));
    const out = sh(`printf ${format} | od -An -tx1 -v`).trim().split(/\s+/).map((h) => parseInt(h, 16));
    expect(out).toEqual([...bytes]);
    expect(printfBytes(new Uint8Array([0, 37, 92]))).toBe("\\000%%\\\\");
  });
});
