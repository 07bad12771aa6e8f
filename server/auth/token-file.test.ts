import { describe, expect, test } from "bun:test";
import { parseTokenFile } from "./token-file";
import { ADMIN, READ, WRITE } from "./scopes";

const A = "aaaaaaaaaaaaaaaaaaaa";
const B = "bbbbbbbbbbbbbbbbbbbb";

describe("the token file", () => {
  test("TOKEN SCOPES [BUCKETS], with comments and blank lines", () => {
    expect(parseTokenFile(`# readers\n\n${A} read demo,logs\n${B}\tread,write,admin  *\n`, "t")).toEqual([
      { token: A, scopes: READ, buckets: new Set(["demo", "logs"]) },
      { token: B, scopes: READ | WRITE | ADMIN, buckets: null },
    ]);
  });

  test("mistakes name the line and never repeat the token", () => {
    const errors = [
      parseTokenFile(`${A}`, "t"),
      parseTokenFile(`${A} read demo extra`, "t"),
      parseTokenFile("short read", "t"),
      parseTokenFile(`${A} write,delete`, "t"),
      parseTokenFile(`${A} read Not_A_Bucket`, "t"),
      parseTokenFile(`${A} read\n${A} write`, "t"),
      parseTokenFile("# nothing\n", "t"),
    ];
    for (const e of errors) {
      expect(e).toBeTypeOf("string");
      expect(e as string).not.toContain(A);
    }
    expect(errors[3]).toContain("line 1");
    expect(errors[5]).toContain("line 2");
  });
});
