import { describe, expect, test } from "bun:test";
import { isCrossOrigin } from "./cross-origin";

const h = (init: Record<string, string>) => new Headers(init);

describe("cross-origin requests (Go's CrossOriginProtection)", () => {
  test("Sec-Fetch-Site decides when present: only same-origin and none are this origin", () => {
    expect(isCrossOrigin(h({ "sec-fetch-site": "same-origin" }), "http://127.0.0.1:4437/b/s", 21)).toBe(false);
    expect(isCrossOrigin(h({ "sec-fetch-site": "none" }), "http://127.0.0.1:4437/b/s", 21)).toBe(false);
    expect(isCrossOrigin(h({ "sec-fetch-site": "same-site" }), "http://127.0.0.1:4437/b/s", 21)).toBe(true);
    expect(isCrossOrigin(h({ "sec-fetch-site": "cross-site", origin: "http://127.0.0.1:4437" }), "http://127.0.0.1:4437/b/s", 21)).toBe(true);
  });

  test("without it, Origin is compared with the request's host and port", () => {
    expect(isCrossOrigin(h({ origin: "http://127.0.0.1:4437" }), "http://127.0.0.1:4437/b/s", 21)).toBe(false);
    expect(isCrossOrigin(h({ origin: "https://127.0.0.1:4437" }), "http://127.0.0.1:4437/b/s", 21)).toBe(false);
    expect(isCrossOrigin(h({ origin: "http://127.0.0.1:5173" }), "http://127.0.0.1:4437/b/s", 21)).toBe(true);
    expect(isCrossOrigin(h({ origin: "null" }), "http://127.0.0.1:4437/b/s", 21)).toBe(true);
  });

  test("a request with neither header (curl, Node) is not a browser's cross-origin request", () => {
    expect(isCrossOrigin(h({}), "http://127.0.0.1:4437/b/s", 21)).toBe(false);
  });
});
