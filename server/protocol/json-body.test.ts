import { describe, expect, test } from "bun:test";
import { jsonMessages, MAX_JSON_DEPTH } from "./json-body";

const enc = (s: string) => new TextEncoder().encode(s);
const texts = (body: string, allowEmpty = false) => {
  const r = jsonMessages(enc(body), allowEmpty);
  if (!r.ok) throw new Error(r.error.code);
  return r.value.map((m) => new TextDecoder().decode(m));
};
const code = (body: string, allowEmpty = false) => {
  const r = jsonMessages(enc(body), allowEmpty);
  return r.ok ? "ok" : r.error.code;
};

describe("JSON mode payloads (spec §1.6)", () => {
  test("a non-array value is one compact message ending in LF", () => {
    expect(texts(' { "a" : 1 ,\n "b" : [ 1 , 2 ] } ')).toEqual(['{"a":1,"b":[1,2]}\n']);
  });
  test("a top-level array is flattened exactly one level", () => {
    expect(texts("[[1,2],[3,4]]")).toEqual(["[1,2]\n", "[3,4]\n"]);
    expect(texts("[[[1,2,3]]]")).toEqual(["[[1,2,3]]\n"]);
    expect(texts('[ {"n":1} , "x" , 3 ]')).toEqual(['{"n":1}\n', '"x"\n', "3\n"]);
  });
  test("the writer's text is kept: number spelling, member order, duplicate keys, string whitespace", () => {
    expect(texts('{"z":1e400,"a":12345678901234567890,"z":0.10}')).toEqual([
      '{"z":1e400,"a":12345678901234567890,"z":0.10}\n',
    ]);
    expect(texts('["a b , ] \\" [", "\\\\"]')).toEqual(['"a b , ] \\" ["\n', '"\\\\"\n']);
  });
  test("[] is an error on append and an empty stream on create", () => {
    expect(code("[]")).toBe("EMPTY_JSON_ARRAY");
    expect(code(" [ ] ")).toBe("EMPTY_JSON_ARRAY");
    expect(texts("[]", true)).toEqual([]);
  });
  test("invalid JSON, invalid UTF-8 and excessive nesting are INVALID_JSON", () => {
    expect(code("{")).toBe("INVALID_JSON");
    expect(code("[1,]")).toBe("INVALID_JSON");
    expect(code("")).toBe("INVALID_JSON");
    expect(jsonMessages(new Uint8Array([0x22, 0xff, 0x22]), false).ok).toBe(false);
    expect(code("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH))).toBe("ok");
    expect(code("[".repeat(MAX_JSON_DEPTH + 1) + "]".repeat(MAX_JSON_DEPTH + 1))).toBe("INVALID_JSON");
  });
});
