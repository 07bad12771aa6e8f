import { describe, expect, test } from "bun:test";
import { decideAttrsPut, parseAttrs } from "./attrs";
import { streamState } from "./testing-state";

describe("PUT …/attrs (spec §2.11)", () => {
  const s = streamState({ incarnation: "9" });
  test("404, 410 for a soft-deleted stream, 412 for another incarnation, in that order", () => {
    expect(decideAttrsPut(undefined, "1", null, null)).toMatchObject({ code: "STREAM_NOT_FOUND" });
    expect(decideAttrsPut({ ...s, softDeleted: true }, "1", null, null)).toMatchObject({ code: "STREAM_SOFT_DELETED" });
    expect(decideAttrsPut(s, "1", '{"a":1}', null)).toMatchObject({ code: "STREAM_INCARNATION_MISMATCH" });
  });
  test("the stored text as loaded decides: equal is unchanged, anything else replaces it, null clears it", () => {
    expect(decideAttrsPut(s, "9", '{"a":1}', '{"a":1}')).toEqual({ kind: "unchanged", state: s });
    expect(decideAttrsPut(s, null, '{"a":2}', '{"a":1}')).toEqual({ kind: "replace", state: s, attrs: '{"a":2}' });
    expect(decideAttrsPut(s, null, null, '{"a":1}')).toEqual({ kind: "replace", state: s, attrs: null });
    expect(decideAttrsPut(s, null, null, null)).toEqual({ kind: "unchanged", state: s });
  });
});

describe("attribute keys are the client's, whatever their names", () => {
  test("`__proto__` and `constructor` in metadata are kept as keys, at every depth, sorted like the others", () => {
    const parsed = parseAttrs('{"title":"p","metadata":{"__proto__":{"x":7},"a":1,"constructor":{"__proto__":[1]}}}');
    expect(parsed).toEqual({ ok: true, value: '{"title":"p","metadata":{"__proto__":{"x":7},"a":1,"constructor":{"__proto__":[1]}}}' });
  });
  test("a `__proto__` key leaves no mark on other objects' prototypes", () => {
    parseAttrs('{"metadata":{"__proto__":{"polluted":true}}}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
