import { describe, expect, test } from "bun:test";
import { readBody } from "./body";

/** A request whose body delivers two bytes and then fails, as when the client's connection drops. */
function brokenRequest(headers: Record<string, string>): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode("ab"));
      controller.error(new Error("connection closed"));
    },
  });
  return new Request("http://ursa.test/b/s", { method: "POST", headers, body, duplex: "half" } as RequestInit);
}

describe("readBody", () => {
  test("a body that breaks off mid-way is the client's 400, not a thrown error", async () => {
    for (const headers of [{}, { "content-length": "5" }] as Record<string, string>[]) {
      const got = await readBody(brokenRequest(headers), 1024);
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.error.code).toBe("BAD_REQUEST");
    }
  });

  test("a whole body is returned as it came, with or without a declared length", async () => {
    for (const headers of [{}, { "content-length": "3" }] as Record<string, string>[]) {
      const req = new Request("http://ursa.test/b/s", { method: "POST", headers, body: "abc" });
      const got = await readBody(req, 1024);
      expect(got.ok && new TextDecoder().decode(got.value)).toBe("abc");
    }
  });

  test("a body past the limit is 413, declared or streamed", async () => {
    const declared = await readBody(new Request("http://ursa.test/b/s", { method: "POST", body: "abcd" }), 3);
    expect(!declared.ok && declared.error.code).toBe("PAYLOAD_TOO_LARGE");
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(2));
        controller.enqueue(new Uint8Array(2));
        controller.close();
      },
    });
    const streamed = await readBody(new Request("http://ursa.test/b/s", { method: "POST", body: chunks, duplex: "half" } as RequestInit), 3);
    expect(!streamed.ok && streamed.error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});
