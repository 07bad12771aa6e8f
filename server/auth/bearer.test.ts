import { describe, expect, test } from "bun:test";
import { credentialOf, redactAccessToken } from "./bearer";

const TOKEN = "t0ken-abcdefghijklmnop";
const cred = (method: string, headers: Record<string, string>, url = "http://x/b/s") => credentialOf(method, new Headers(headers).get("authorization"), url);

describe("the bearer token of a request (RFC 6750)", () => {
  test("from Authorization, any case of the scheme; other schemes are not ursa's", () => {
    expect(cred("POST", { authorization: `Bearer ${TOKEN}` })).toEqual({ kind: "bearer", token: TOKEN });
    expect(cred("POST", { authorization: `bearer   ${TOKEN} ` })).toEqual({ kind: "bearer", token: TOKEN });
    expect(cred("POST", { authorization: "Basic dXNlcjpwYXNz" })).toEqual({ kind: "none" });
    expect(cred("POST", {})).toEqual({ kind: "none" });
    expect(cred("POST", { authorization: "Bearer" }).kind).toBe("refused");
    expect(cred("POST", { authorization: "Bearer a b" }).kind).toBe("refused");
  });

  test("from access_token on GET and HEAD only, however its name is encoded", () => {
    expect(cred("GET", {}, `http://x/b/s?offset=-1&live=sse&access_token=${TOKEN}`)).toEqual({ kind: "bearer", token: TOKEN });
    expect(cred("HEAD", {}, `http://x/b/s?access%5Ftoken=${TOKEN}`)).toEqual({ kind: "bearer", token: TOKEN });
    expect(cred("POST", {}, `http://x/b/s?access_token=${TOKEN}`)).toEqual({ kind: "none" });
  });

  test("two tokens, or a header and a query token, are one too many", () => {
    const both = cred("GET", { authorization: `Bearer ${TOKEN}` }, `http://x/b/s?access_token=${TOKEN}`);
    expect(both.kind === "refused" && both.error.code).toBe("BAD_REQUEST");
    expect(cred("GET", {}, `http://x/b/s?access_token=${TOKEN}&access_token=${TOKEN}`).kind).toBe("refused");
  });

  test("redaction replaces every access_token value and leaves the rest", () => {
    expect(redactAccessToken(`/b/s?offset=-1&access_token=${TOKEN}&live=sse`)).toBe("/b/s?offset=-1&access_token=REDACTED&live=sse");
    expect(redactAccessToken(`http://h/b/s?access%5Ftoken=${TOKEN}&access_token=${TOKEN}#x`)).toBe("http://h/b/s?access%5Ftoken=REDACTED&access_token=REDACTED#x");
    expect(redactAccessToken("/b/s?offset=-1")).toBe("/b/s?offset=-1");
    expect(redactAccessToken("/b/s")).toBe("/b/s");
  });
});
