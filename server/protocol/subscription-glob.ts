// Which stream paths a subscription's pattern takes in (DS §6): `*` is exactly one path segment,
// `**` zero or more, any other segment matches itself (`%2A` standing for a literal `*`).

import { normalizeStreamPath } from "./subscription-config";

export function globMatches(pattern: string, path: string): boolean {
  return matchFrom(segments(pattern), 0, segments(path), 0);
}

function segments(p: string): string[] {
  return normalizeStreamPath(p).split("/").filter((s) => s.length > 0);
}

function matchFrom(pattern: string[], pi: number, path: string[], si: number): boolean {
  while (pi < pattern.length && si < path.length) {
    const seg = pattern[pi]!;
    if (seg === "**") {
      for (let i = si; i <= path.length; i++) if (matchFrom(pattern, pi + 1, path, i)) return true;
      return false;
    }
    if (seg !== "*" && seg.replace(/%2a/gi, "*") !== path[si]) return false;
    pi++;
    si++;
  }
  while (pi < pattern.length && pattern[pi] === "**") pi++;
  return pi === pattern.length && si === path.length;
}
