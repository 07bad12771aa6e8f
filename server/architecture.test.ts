// The server's architecture as rules over its import graph, in the spirit of dependency-cruiser
// (docs/architecture.md): storage engines are folders that no layer above storage reaches into,
// neither engine leans on the other, auth/ stands below http/, and no import cycle exists.
//
// Tests (*.test.ts) and testing/ may drive an engine directly (they open its database to damage
// or inspect it); main.ts is the composition root, the one other file that names an engine.

import { describe, expect, test } from "bun:test";
import { findCycles, importSpecifiers, readImportGraph, type ImportGraph } from "./testing/import-graph";

const ENGINES = ["storage/sqlite/", "storage/postgres/"] as const;
const ABOVE_STORAGE = ["http/", "live/", "protocol/", "auth/"];

const isTest = (file: string) => file.endsWith(".test.ts") || file.startsWith("testing/");
const engineOf = (file: string) => ENGINES.find((engine) => file.startsWith(engine));

/** Every import that breaks a rule, as `file → import: rule`. */
function violations(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = engineOf(file);
    for (const to of imports) {
      const target = engineOf(to);
      const broken = (rule: string) => found.push(`${file} → ${to}: ${rule}`);
      if (from && target && from !== target) broken("one engine imports the other");
      if (isTest(file)) continue;
      if (to === "bun:sqlite" && from !== "storage/sqlite/") broken("bun:sqlite outside storage/sqlite/");
      if (target && !from) {
        if (ABOVE_STORAGE.some((layer) => file.startsWith(layer))) broken("a layer above storage imports an engine");
        else if (file.startsWith("storage/")) broken("storage's engine-neutral files import an engine");
        else if (file !== "main.ts") broken("only main.ts, the composition root, names an engine");
      }
      if (file.startsWith("auth/") && to.startsWith("http/")) broken("auth/ imports http/");
    }
  }
  return found.sort();
}

describe("the checker", () => {
  test("reads import, export and dynamic import specifiers, and not those in comments", () => {
    const source = [
      `import { a } from "./a";`,
      `import type { B } from "../b";`,
      `export { c } from "./c";`,
      `import "./side-effect";`,
      `const d = await import("./d");`,
      `// import { e } from "./e";`,
      `/* export * from "./f"; */`,
    ].join("\n");
    expect(importSpecifiers(source)).toEqual(["./a", "../b", "./c", "./side-effect", "./d"]);
  });

  test("finds a cycle and names the path that closes it; an acyclic graph has none", () => {
    const cyclic: ImportGraph = new Map([
      ["a.ts", ["b.ts", "node:fs"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["d.ts"]],
      ["e.ts", ["a.ts"]],
    ]);
    expect(findCycles(cyclic)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"], ["d.ts", "d.ts"]]);
    expect(findCycles(new Map([["a.ts", ["b.ts"]], ["b.ts", ["c.ts"]], ["c.ts", []]]))).toEqual([]);
  });

  test("flags each broken rule, and lets tests and the composition root drive an engine", () => {
    const graph: ImportGraph = new Map([
      ["storage/postgres/pg-store.ts", ["storage/sqlite/browse.ts", "storage/store.ts"]],
      ["http/reads.ts", ["storage/sqlite/message-index.ts", "storage/store.ts"]],
      ["live/hub.ts", ["bun:sqlite"]],
      ["auth/access.ts", ["http/paths.ts"]],
      ["storage/store.ts", ["storage/postgres/rows.ts"]],
      ["storage/sqlite/rows.ts", ["bun:sqlite"]],
      ["http/segment-reads.test.ts", ["bun:sqlite", "storage/sqlite/sqlite-store.ts"]],
      ["main.ts", ["storage/sqlite/sqlite-store.ts", "storage/postgres/pg-store.ts"]],
      ["ops/server-metrics.ts", ["storage/sqlite/group-commit.ts", "storage/commit-observer.ts"]],
    ]);
    expect(violations(graph)).toEqual([
      "auth/access.ts → http/paths.ts: auth/ imports http/",
      "http/reads.ts → storage/sqlite/message-index.ts: a layer above storage imports an engine",
      "live/hub.ts → bun:sqlite: bun:sqlite outside storage/sqlite/",
      "ops/server-metrics.ts → storage/sqlite/group-commit.ts: only main.ts, the composition root, names an engine",
      "storage/postgres/pg-store.ts → storage/sqlite/browse.ts: one engine imports the other",
      "storage/store.ts → storage/postgres/rows.ts: storage's engine-neutral files import an engine",
    ]);
  });
});

describe("the server's imports", () => {
  const graph = readImportGraph(import.meta.dir);

  test("are read: every layer is there", () => {
    for (const folder of ["http/", "live/", "protocol/", "auth/", "storage/sqlite/", "storage/postgres/"]) {
      expect([...graph.keys()].some((file) => file.startsWith(folder))).toBe(true);
    }
  });

  test("keep bun:sqlite in storage/sqlite/, the engines apart and named only by main.ts, and auth/ below http/", () => {
    expect(violations(graph)).toEqual([]);
  });

  test("form no cycle", () => {
    expect(findCycles(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
  });
});
