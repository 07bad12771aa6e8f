import { describe, expect, test } from "bun:test";
import { Cors, parseCorsOrigins, surfaceOf, type CorsRules } from "./cors";

const rules = (raw: string) => parseCorsOrigins(raw) as CorsRules;
const preflight = (cors: Cors, origin: string, method: string, headers?: string) =>
  cors.preflight(new Headers({ origin, "access-control-request-method": method, ...(headers ? { "access-control-request-headers": headers } : {}) })).headers;

describe("--cors-origins", () => {
  test("* or a list of origins; anything with a path, or * in a list, is refused", () => {
    expect(rules("*").any).toBe(true);
    expect([...rules("https://app.example, http://localhost:5173").origins]).toEqual(["https://app.example", "http://localhost:5173"]);
    expect([...rules("HTTP://LOCALHOST:80").origins]).toEqual(["http://localhost"]);
    for (const bad of ["", "*,https://a.example", "https://a.example/", "https://a.example/x", "ftp://a.example", "a.example"]) expect(parseCorsOrigins(bad)).toBeTypeOf("string");
  });
});

describe("preflights list only what the origin may do", () => {
  test("any origin may read; writes are not offered, nor headers only writes use", () => {
    const h = preflight(new Cors(rules("*"), false), "https://evil.example", "DELETE", "Stream-Seq, If-None-Match, X-Custom");
    expect(h.get("access-control-allow-origin")).toBe("*");
    expect(h.get("access-control-allow-methods")).toBe("GET, HEAD");
    expect(h.get("access-control-allow-headers")).toBe("if-none-match");
    expect(h.get("access-control-allow-credentials")).toBeNull();
  });

  test("with authentication on, a preflight that asks for Authorization may write: the token is checked on the real request", () => {
    const h = preflight(new Cors(rules("*"), true), "https://app.example", "POST", "authorization, content-type, producer-id");
    expect(h.get("access-control-allow-methods")).toBe("GET, HEAD, POST, PUT, DELETE");
    expect(h.get("access-control-allow-headers")).toBe("authorization, content-type, producer-id");
    const off = preflight(new Cors(rules("*"), false), "https://app.example", "POST", "authorization, content-type");
    expect(off.get("access-control-allow-methods")).toBe("GET, HEAD");
  });

  test("a listed origin is named and may write; an unlisted one gets no grant at all", () => {
    const cors = new Cors(rules("http://localhost:5173"), false);
    const listed = preflight(cors, "http://localhost:5173", "PUT", "content-type");
    expect([listed.get("access-control-allow-origin"), listed.get("access-control-allow-methods")]).toEqual(["http://localhost:5173", "GET, HEAD, POST, PUT, DELETE"]);
    const other = preflight(cors, "http://localhost:3000", "GET");
    expect([other.get("access-control-allow-origin"), other.get("access-control-allow-methods")]).toEqual([null, null]);
  });
});

describe("responses", () => {
  const response = () => new Response(null, { headers: { "access-control-allow-origin": "*", "access-control-expose-headers": "Stream-Next-Offset" } });

  test("stream data keeps * by default; the console and the introspection API never carry it", () => {
    const cors = new Cors(rules("*"), false);
    expect(cors.decorates("data")).toBe(false);
    for (const surface of ["console", "private"] as const) {
      expect(cors.decorate(response(), "https://evil.example", surface).headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  test("with a list, only listed origins are named, and responses vary by Origin", () => {
    const cors = new Cors(rules("http://localhost:5173"), false);
    const listed = cors.decorate(response(), "http://localhost:5173", "private").headers;
    expect([listed.get("access-control-allow-origin"), listed.get("vary")]).toEqual(["http://localhost:5173", "Origin"]);
    expect(cors.decorate(response(), "http://localhost:3000", "data").headers.get("access-control-allow-origin")).toBeNull();
  });

  test("surfaces", () => {
    expect(["/b/s", "/b", "/__ursula/health", "/__ursula/ready", "/__ursula/api/info", "/__ursula/metrics", "/", "/ui/", "/ui/assets/x.js", "/uix"].map(surfaceOf)).toEqual([
      "data", "data", "data", "data", "private", "private", "console", "console", "console", "data",
    ]);
  });
});
