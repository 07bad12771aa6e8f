// Attributes (spec §2.11–§2.12): what a successful GET and PUT do, and what they leave alone.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

const J = { "Content-Type": "application/json" };
let h: Harness;
beforeEach(async () => {
  h = harness();
  expect((await h.request("PUT", "/test-b/s", { headers: J, body: '[{"n":1}]' })).status).toBe(201);
});
afterEach(() => h.close());

const getAttrs = async (path = "/test-b/s") => {
  const res = await h.request("GET", `${path}/attrs`);
  expect(res.status).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/json");
  expect(res.headers.get("Stream-Incarnation")).toBe((await h.store.get(path.slice(1)))!.incarnation);
  return res.json();
};
const putAttrs = (body: string, headers: Record<string, string> = {}) => h.request("PUT", "/test-b/s/attrs", { headers: { ...J, ...headers }, body });

describe("GET and PUT …/attrs", () => {
  test("a stream without attributes answers {}", async () => {
    expect(await getAttrs()).toEqual({});
  });

  test("PUT replaces them whole: title and metadata are kept, unknown fields are not, {} clears", async () => {
    const res = await putAttrs('{"title":"Run 42","metadata":{"b":[{"y":1,"x":2}],"a":true},"color":"red"}');
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Incarnation")).toBe((await h.store.get("test-b/s"))!.incarnation);
    // metadata keys are sorted, so the text a re-PUT compares does not depend on member order.
    const text = await (await h.request("GET", "/test-b/s/attrs")).text();
    expect(text).toBe('{"title":"Run 42","metadata":{"a":true,"b":[{"x":2,"y":1}]}}');
    expect((await putAttrs('{"metadata":{"k":1}}')).status).toBe(204);
    expect(await getAttrs()).toEqual({ metadata: { k: 1 } });
    expect((await putAttrs("{}")).status).toBe(204);
    expect(await getAttrs()).toEqual({});
    expect((await h.store.get("test-b/s"))!.attrsId).toBeNull();
  });

  test("a PUT of equal attributes is a 204 that writes nothing new", async () => {
    await putAttrs('{"title":"t"}');
    const id = (await h.store.get("test-b/s"))!.attrsId;
    expect((await putAttrs('{ "title" : "t" }')).status).toBe(204);
    expect((await h.store.get("test-b/s"))!.attrsId).toBe(id);
  });

  test("neither GET nor PUT renews the TTL", async () => {
    expect((await h.request("PUT", "/test-b/ttl", { headers: { ...J, "Stream-TTL": "60" } })).status).toBe(201);
    const touched = (await h.store.get("test-b/ttl"))!.touchedAtMs;
    h.clock.now += 30_000;
    expect((await h.request("PUT", "/test-b/ttl/attrs", { headers: J, body: '{"title":"x"}' })).status).toBe(204);
    expect(await getAttrs("/test-b/ttl")).toEqual({ title: "x" });
    expect((await h.store.get("test-b/ttl"))!.touchedAtMs).toBe(touched);
    h.clock.now += 31_000;
    expect((await h.request("GET", "/test-b/ttl/attrs")).status).toBe(404);
  });

  test("a change of attributes leaves the read and HEAD validators as they were", async () => {
    const validators = async () => {
      const head = await h.request("HEAD", "/test-b/s");
      const read = await h.request("GET", "/test-b/s?offset=-1");
      return [head.headers.get("ETag"), head.headers.get("Stream-Next-Offset"), read.headers.get("ETag"), await read.text()];
    };
    const before = await validators();
    expect((await putAttrs('{"title":"changed"}')).status).toBe(204);
    expect(await validators()).toEqual(before);
  });

  test("attributes may change after the stream is closed", async () => {
    expect((await h.request("POST", "/test-b/s", { headers: { "Stream-Closed": "true" } })).status).toBe(204);
    expect((await putAttrs('{"title":"closed"}')).status).toBe(204);
    expect(await getAttrs()).toEqual({ title: "closed" });
  });

  test("HEAD …/attrs answers GET's headers without a body", async () => {
    await putAttrs('{"title":"t"}');
    const res = await h.request("HEAD", "/test-b/s/attrs");
    expect(res.status).toBe(200);
    expect(res.headers.get("Stream-Incarnation")).not.toBeNull();
    expect(await res.text()).toBe("");
  });

  test("a matching Stream-Incarnation is honoured on GET and PUT", async () => {
    const token = (await h.store.get("test-b/s"))!.incarnation;
    expect((await putAttrs('{"title":"t"}', { "Stream-Incarnation": token })).status).toBe(204);
    expect((await h.request("GET", "/test-b/s/attrs", { headers: { "Stream-Incarnation": token } })).status).toBe(200);
  });
});

describe("Stream-Attrs on PUT (spec §2.5)", () => {
  test("a creating PUT sets them; a re-PUT is idempotent only when they match, in any member order", async () => {
    const attrs = '{"title":"t","metadata":{"a":1,"b":2}}';
    expect((await h.request("PUT", "/test-b/a", { headers: { ...J, "Stream-Attrs": attrs } })).status).toBe(201);
    expect(await getAttrs("/test-b/a")).toEqual({ title: "t", metadata: { a: 1, b: 2 } });
    expect((await h.request("PUT", "/test-b/a", { headers: { ...J, "Stream-Attrs": '{"metadata":{"b":2,"a":1},"title":"t"}' } })).status).toBe(200);
    const before = await h.fingerprint("test-b/a");
    const other = await h.request("PUT", "/test-b/a", { headers: { ...J, "Stream-Attrs": '{"title":"u"}' } });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe("STREAM_ALREADY_EXISTS_CONFLICT");
    expect((await h.request("PUT", "/test-b/a", { headers: J })).status).toBe(409);
    expect(await h.fingerprint("test-b/a")).toBe(before);
  });

  test("a re-PUT compares with the attributes as PUT …/attrs last left them", async () => {
    expect((await putAttrs('{"title":"later"}')).status).toBe(204);
    expect((await h.request("PUT", "/test-b/s", { headers: J })).status).toBe(409);
    expect((await h.request("PUT", "/test-b/s", { headers: { ...J, "Stream-Attrs": '{"title":"later"}' } })).status).toBe(200);
  });

  test("a recreated stream starts without the attributes of the one before", async () => {
    await putAttrs('{"title":"old"}');
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    expect((await h.request("PUT", "/test-b/s", { headers: J })).status).toBe(201);
    expect(await getAttrs()).toEqual({});
  });
});

describe("keys named like Object.prototype's", () => {
  const text = '{"title":"p","metadata":{"__proto__":{"x":7},"a":1,"constructor":{"prototype":2}}}';
  test("PUT …/attrs keeps `__proto__` and `constructor`, and GET and the console's detail give them back", async () => {
    expect((await putAttrs(text)).status).toBe(204);
    expect(await (await h.request("GET", "/test-b/s/attrs")).text()).toBe(text);
    const detail = await (await h.request("GET", "/__ursula/api/streams/test-b/s")).text();
    expect(detail).toContain('"attrs":' + text);
  });
  test("so does Stream-Attrs on create", async () => {
    expect((await h.request("PUT", "/test-b/t", { headers: { ...J, "Stream-Attrs": text } })).status).toBe(201);
    expect(await (await h.request("GET", "/test-b/t/attrs")).text()).toBe(text);
  });
});
