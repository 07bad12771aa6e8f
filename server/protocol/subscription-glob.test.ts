import { describe, expect, test } from "bun:test";
import { globMatches } from "./subscription-glob";

describe("globMatches (DS §6 patterns)", () => {
  test("* is exactly one segment", () => {
    expect(globMatches("events/*", "events/a")).toBe(true);
    expect(globMatches("events/*", "events")).toBe(false);
    expect(globMatches("events/*", "events/a/b")).toBe(false);
    expect(globMatches("events/*", "other/a")).toBe(false);
  });

  test("** is zero or more segments, in the middle or at the end", () => {
    expect(globMatches("events/**", "events")).toBe(true);
    expect(globMatches("events/**", "events/a/b/c")).toBe(true);
    expect(globMatches("a/**/z", "a/z")).toBe(true);
    expect(globMatches("a/**/z", "a/b/c/z")).toBe(true);
    expect(globMatches("a/**/z", "a/b/c/y")).toBe(false);
  });

  test("literal segments match themselves; %2A is a literal star; slashes at the ends do not count", () => {
    expect(globMatches("/a/b/", "a/b")).toBe(true);
    expect(globMatches("a/%2A", "a/*")).toBe(true);
    expect(globMatches("a/%2A", "a/x")).toBe(false);
  });
});
