// INVALID_SNAPSHOT for an offset inside a message names the boundaries on either side, in the
// message and as fields of the JSON body; other refusals pass through unchanged.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { protocolError } from "../protocol/errors";
import { harness, type Harness } from "../testing/app-harness";
import { renderError } from "./error-map";
import { withNearestBoundaries } from "./nearest-boundaries";

const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
type Body = { error: { code: string; message: string; boundary_before?: string; boundary_after?: string } };

let h: Harness;
beforeEach(async () => {
  h = harness();
  // JSON messages at 0, 8 and 16, tail 24; bytes "hello" then "world!" at 0 and 5, tail 11.
  expect((await h.request("PUT", "/nb-b/j", { headers: J, body: '[{"n":1},{"n":2},{"n":3}]' })).status).toBe(201);
  expect((await h.request("PUT", "/nb-b/t", { headers: { "Content-Type": "text/plain" }, body: "hello" })).status).toBe(201);
  expect((await h.request("POST", "/nb-b/t", { headers: { "Content-Type": "text/plain" }, body: "world!" })).status).toBe(204);
});
afterEach(() => h.close());

const key = (name: string) => `nb-b/${name}`;

describe("withNearestBoundaries", () => {
  test("an offset inside a message gets the message's start and end", async () => {
    const e = await withNearestBoundaries(h.store, key("j"), 11, protocolError("INVALID_SNAPSHOT", "not a boundary"));
    expect(e.code).toBe("INVALID_SNAPSHOT");
    expect(e.context).toEqual({ boundaries: { before: 8, after: 16 } });
    expect(e.message).toContain(`${at(8)} (byte 8) before it and ${at(16)} (byte 16) after it`);
    const bytes = await withNearestBoundaries(h.store, key("t"), 7, protocolError("INVALID_SNAPSHOT", "not a boundary"));
    expect(bytes.context).toEqual({ boundaries: { before: 5, after: 11 } });
  });

  test("other refusals, and an offset with no message around it, are left as they are", async () => {
    const other = protocolError("SNAPSHOT_NOT_FOUND", "none");
    expect(await withNearestBoundaries(h.store, key("j"), 11, other)).toBe(other);
    const blank = protocolError("INVALID_SNAPSHOT", "blank Content-Type");
    expect(await withNearestBoundaries(h.store, key("j"), null, blank)).toBe(blank);
    expect(await withNearestBoundaries(h.store, key("missing"), 3, blank)).toBe(blank);
  });

  test("the error map renders the boundaries as offsets in the JSON body", async () => {
    const res = renderError(protocolError("INVALID_SNAPSHOT", "m", { boundaries: { before: 8, after: 16 } }));
    expect(res.status).toBe(400);
    expect(((await res.json()) as Body).error).toEqual({ code: "INVALID_SNAPSHOT", message: "m", boundary_before: at(8), boundary_after: at(16) });
  });
});

describe("over HTTP", () => {
  test("a snapshot published inside a message answers 400 naming both boundaries", async () => {
    const res = await h.request("PUT", `/nb-b/j/snapshot/${at(11)}`, { headers: J, body: "{}" });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as Body;
    expect([error.code, error.boundary_before, error.boundary_after]).toEqual(["INVALID_SNAPSHOT", at(8), at(16)]);
    expect(error.message).toContain(at(8));
    expect(error.message).toContain(at(16));
  });

  test("retention inside a message answers 400 naming both boundaries", async () => {
    expect((await h.request("PUT", `/nb-b/t/snapshot/${at(11)}`, { headers: { "Content-Type": "text/plain" }, body: "s" })).status).toBe(204);
    const res = await h.request("PUT", `/nb-b/t/retention/${at(2)}`);
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as Body;
    expect([error.code, error.boundary_before, error.boundary_after]).toEqual(["INVALID_SNAPSHOT", at(0), at(5)]);
  });

  test("a blank snapshot Content-Type stays a plain INVALID_SNAPSHOT", async () => {
    const res = await h.request("PUT", `/nb-b/j/snapshot/${at(8)}`, { headers: { "Content-Type": " " }, body: "{}" });
    const { error } = (await res.json()) as Body;
    expect([res.status, error.code, error.boundary_before]).toEqual([400, "INVALID_SNAPSHOT", undefined]);
  });
});
