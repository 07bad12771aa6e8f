import { expect, test } from "bun:test";
import { isSafeMethod } from "./methods";

test("GET, HEAD and OPTIONS are the safe methods", () => {
  expect(["GET", "HEAD", "OPTIONS", "POST", "PUT", "DELETE", "PATCH"].map(isSafeMethod)).toEqual([true, true, true, false, false, false, false]);
});
