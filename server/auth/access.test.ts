import { describe, expect, test } from "bun:test";
import { forkSource, requiredAccess, type Access } from "./access";
import { scopeName, type Scope } from "./scopes";

const need = (method: string, raw: string) => {
  const a: Access = requiredAccess(method, raw);
  if (a.kind === "open" || a.kind === "identify") return a.kind;
  const scope = scopeName(a.scope as Scope);
  return a.kind === "bucket" ? `${scope} ${a.bucket} ${a.conceal}` : `${scope} ${a.kind}`;
};

describe("what a request needs, by method and path shape", () => {
  test("streams: GET and HEAD read, writes write, DELETE is admin", () => {
    expect(need("GET", "/demo/s1")).toBe("read demo STREAM_NOT_FOUND");
    expect(need("HEAD", "/demo/s1")).toBe("read demo STREAM_NOT_FOUND");
    expect(need("POST", "/demo/s1")).toBe("write demo STREAM_NOT_FOUND");
    expect(need("PUT", "/demo/s1")).toBe("write demo STREAM_NOT_FOUND");
    expect(need("PATCH", "/demo/s1")).toBe("write demo STREAM_NOT_FOUND");
    expect(need("DELETE", "/demo/s1")).toBe("admin demo STREAM_NOT_FOUND");
  });

  test("sub-resources by shape: attrs, snapshots, bootstrap and batches follow the method; retention is admin", () => {
    expect(need("GET", "/demo/s1/attrs")).toBe("read demo STREAM_NOT_FOUND");
    expect(need("PUT", "/demo/s1/attrs")).toBe("write demo STREAM_NOT_FOUND");
    expect(need("PUT", "/demo/s1/snapshot/0000000000000000_0000000000000004")).toBe("write demo STREAM_NOT_FOUND");
    expect(need("GET", "/demo/s1/snapshot")).toBe("read demo STREAM_NOT_FOUND");
    expect(need("DELETE", "/demo/s1/snapshot/0000000000000000_0000000000000004")).toBe("admin demo STREAM_NOT_FOUND");
    expect(need("GET", "/demo/s1/bootstrap")).toBe("read demo STREAM_NOT_FOUND");
    expect(need("POST", "/demo/s1/append-batch")).toBe("write demo STREAM_NOT_FOUND");
    expect(need("PUT", "/demo/s1/retention/0000000000000000_0000000000000004")).toBe("admin demo STREAM_NOT_FOUND");
    expect(need("PUT", "/demo/s1/retention")).toBe("admin demo STREAM_NOT_FOUND");
  });

  test("buckets: reads read; PUT and DELETE are admin; the listing is a read", () => {
    expect(need("GET", "/demo")).toBe("read demo BUCKET_NOT_FOUND");
    expect(need("PUT", "/demo")).toBe("admin demo BUCKET_NOT_FOUND");
    expect(need("DELETE", "/demo")).toBe("admin demo BUCKET_NOT_FOUND");
    expect(need("GET", "/demo/streams")).toBe("read demo BUCKET_NOT_FOUND");
  });

  test("the v1 surface is bucket _default; a percent-encoded bucket is decoded as the handler decodes it", () => {
    expect(need("POST", "/v1/stream/orders")).toBe("write _default STREAM_NOT_FOUND");
    expect(need("GET", "/v1/stream")).toBe("read _default STREAM_NOT_FOUND");
    expect(need("GET", "/%64emo/s1")).toBe("read demo STREAM_NOT_FOUND");
  });

  test("a v1 path {bucket}/{stream} (--v1-bucket-paths) needs the scope on that bucket, not on _default", () => {
    expect(need("PUT", "/v1/stream/events/x")).toBe("write events STREAM_NOT_FOUND");
    expect(need("GET", "/v1/stream/events/x")).toBe("read events STREAM_NOT_FOUND");
    expect(need("GET", "/v1/stream/ab/x")).toBe("read any-bucket");
  });

  test("DS subscriptions (issue 49): configuring is admin, a claim reads, a callback, ack or release carries its own token, the signing key is public", () => {
    for (const method of ["GET", "PUT", "DELETE"]) expect(need(method, "/demo/__ds/subscriptions/s1")).toBe("admin demo BUCKET_NOT_FOUND");
    expect(need("POST", "/demo/__ds/subscriptions/s1/streams")).toBe("admin demo BUCKET_NOT_FOUND");
    expect(need("DELETE", "/demo/__ds/subscriptions/s1/streams/a")).toBe("admin demo BUCKET_NOT_FOUND");
    expect(need("POST", "/demo/__ds/subscriptions/s1/claim")).toBe("read demo BUCKET_NOT_FOUND");
    for (const action of ["callback", "ack", "release"]) expect(need("POST", `/demo/__ds/subscriptions/s1/${action}`)).toBe("open");
    expect(need("GET", "/demo/__ds/jwks.json")).toBe("open");
    // On /v1/stream/ a subscription may follow any bucket's streams: server-wide.
    expect(need("PUT", "/v1/stream/__ds/subscriptions/s1")).toBe("admin server");
    expect(need("POST", "/v1/stream/__ds/subscriptions/s1/claim")).toBe("read server");
    expect(need("POST", "/v1/stream/__ds/subscriptions/s1/callback")).toBe("open");
    expect(need("GET", "/v1/stream/__ds/jwks.json")).toBe("open");
    // An action name elsewhere in the path is no action.
    expect(need("POST", "/demo/__ds/subscriptions/callback")).toBe("admin demo BUCKET_NOT_FOUND");
  });

  test("a path that names no valid bucket still needs the scope, on no bucket in particular", () => {
    expect(need("GET", "/favicon.ico")).toBe("read any-bucket");
    expect(need("POST", "/ab/s")).toBe("write any-bucket");
    expect(need("GET", "/%ZZzz/s")).toBe("read any-bucket");
  });

  test("/__ursula: health, readiness and the console need nothing; the API reads per bucket; the rest is server-wide", () => {
    expect([need("GET", "/__ursula/health"), need("GET", "/__ursula/ready"), need("GET", "/ui/"), need("GET", "/ui/assets/x.js"), need("GET", "/")]).toEqual(["open", "open", "open", "open", "open"]);
    expect(need("GET", "/__ursula/api/whoami")).toBe("identify");
    expect(need("GET", "/__ursula/api/info")).toBe("read any-bucket");
    expect(need("GET", "/__ursula/api/buckets")).toBe("read any-bucket");
    expect(need("GET", "/__ursula/api/buckets/demo/streams")).toBe("read demo BUCKET_NOT_FOUND");
    expect(need("GET", "/__ursula/api/streams/demo/s1")).toBe("read demo STREAM_NOT_FOUND");
    expect(need("GET", "/__ursula/metrics")).toBe("read server");
    expect(need("DELETE", "/__ursula/purge/demo")).toBe("admin server");
  });

  test("a fork names its source, which must be readable too", () => {
    const put = requiredAccess("PUT", "/demo/copy");
    expect(forkSource("PUT", put, "/private/s")).toMatchObject({ bucket: "private", key: "private/s" });
    expect(forkSource("PUT", put, "/v1/stream/x")?.bucket).toBe("_default");
    expect(forkSource("PUT", put, null)).toBeNull();
    expect(forkSource("POST", requiredAccess("POST", "/demo/copy"), "/private/s")).toBeNull();
  });
});
