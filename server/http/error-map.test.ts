// The status rules that depend on the request, kept in the error map: a soft-deleted path's 409
// for a create and 410 otherwise (spec §7.4), and HEAD's bodiless errors (RFC 9110 §9.3.2).

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

let h: Harness;
beforeEach(() => (h = harness()));
afterEach(() => h.close());

const T = { "Content-Type": "text/plain" };

async function softDeleted(): Promise<void> {
  expect((await h.request("PUT", "/rule/src", { headers: T, body: "abc" })).status).toBe(201);
  expect((await h.request("PUT", "/rule/fork", { headers: { ...T, "Stream-Forked-From": "/rule/src" } })).status).toBe(201);
  expect((await h.request("DELETE", "/rule/src")).status).toBe(204);
}

async function code(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe("a soft-deleted stream", () => {
  test("a create meets it as a conflict: PUT to its path, and a fork from it, are 409", async () => {
    await softDeleted();
    const put = await h.request("PUT", "/rule/src", { headers: T });
    expect([put.status, await code(put)]).toEqual([409, "STREAM_SOFT_DELETED"]);
    const fork = await h.request("PUT", "/rule/fork2", { headers: { ...T, "Stream-Forked-From": "/rule/src" } });
    expect([fork.status, await code(fork)]).toEqual([409, "STREAM_SOFT_DELETED"]);
  });

  test("every other use finds it gone: 410", async () => {
    await softDeleted();
    for (const [method, body] of [["GET", undefined], ["POST", "x"], ["DELETE", undefined]] as const) {
      const res = await h.request(method, "/rule/src", { headers: T, body });
      expect([method, res.status, await code(res)]).toEqual([method, 410, "STREAM_SOFT_DELETED"]);
    }
    // A PUT to a sub-resource is no create.
    const attrs = await h.request("PUT", "/rule/src/attrs", { headers: { "Content-Type": "application/json" }, body: "{}" });
    expect([attrs.status, await code(attrs)]).toEqual([410, "STREAM_SOFT_DELETED"]);
  });
});

describe("HEAD", () => {
  test("an error has GET's status and headers, and no body", async () => {
    await softDeleted();
    const cases: [string, number, Record<string, string>][] = [
      ["/rule/missing", 404, {}],
      ["/rule/src", 410, {}],
      ["/rule/fork/attrs", 200, {}],
      ["/rule/fork/nope", 404, {}],
      ["/rule/fork/snapshot/zz", 400, {}],
      ["/rule/fork", 412, { "Stream-Incarnation": "not-it" }],
      ["/rule/fork/snapshot/0000000000000000_0000000000000000", 404, {}],
    ];
    for (const [path, status, headers] of cases) {
      const get = await h.request("GET", path, { headers });
      const head = await h.request("HEAD", path, { headers });
      expect([path, head.status]).toEqual([path, status]);
      expect(get.status).toBe(status);
      expect(await head.text()).toBe("");
      if (status >= 400) {
        // The JSON body's Content-Type goes with the body; the error's own headers stay.
        expect(get.headers.get("Content-Type")).toBe("application/json");
        expect([path, head.headers.get("Content-Type")]).toEqual([path, null]);
      }
      for (const name of ["Stream-Incarnation", "Stream-Next-Offset", "Allow"]) expect([path, name, head.headers.get(name)]).toEqual([path, name, get.headers.get(name)]);
    }
  });

  test("a refusal before any handler runs is bodiless too, and counted by its code", async () => {
    const res = await h.request("HEAD", "/rule/s", { host: "elsewhere.example" });
    expect(res.status).toBe(421);
    expect(await res.text()).toBe("");
    const metrics = await (await h.request("GET", "/__ursula/metrics")).text();
    expect(metrics).toMatch(/^ursa_http_error_responses_total\{code="HOST_NOT_ALLOWED"\} 1$/m);
  });
});
