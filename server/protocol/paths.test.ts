import { describe, expect, test } from "bun:test";
import { rawPathname } from "./paths";

describe("rawPathname", () => {
  test("is the still-encoded path, like URL.pathname", () => {
    for (const url of [
      "http://h/v1/stream/a%2Fb?offset=-1",
      "http://h:4437/bucket/s%ZZ",
      "http://h/",
      "http://h/x#frag",
      "http://h/x?q=/y#z",
      "http://[::1]:80/a/b",
    ]) {
      expect(rawPathname(url)).toBe(new URL(url).pathname);
    }
  });
});
