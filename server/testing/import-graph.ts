// The server's import graph, read from source text, and the checks the architecture test runs on it:
// which files import what, and where an import cycle closes. A regex over import/export statements
// is enough because the codebase writes only static, string-literal specifiers (plus `import("…")`).

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** file → the specifiers it imports; a relative specifier is resolved to a file path under the root. */
export type ImportGraph = Map<string, string[]>;

const importPattern =
  /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

/** The specifiers one source text imports, in order. Comments are stripped first so prose cannot match. */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
  const found: string[] = [];
  for (const match of code.matchAll(importPattern)) found.push((match[1] ?? match[2])!);
  return found;
}

/** Every .ts file under `root` (node_modules excluded), keyed by its path relative to `root`. */
export function readImportGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
      } else if (entry.name.endsWith(".ts")) {
        const file = relative(root, path);
        const imports = importSpecifiers(readFileSync(path, "utf8")).map((spec) =>
          spec.startsWith(".") ? sourceFile(root, relative(root, resolve(dirname(path), spec))) : spec,
        );
        graph.set(file, imports);
      }
    }
  };
  walk(root);
  return graph;
}

/** A relative specifier names a module without its extension (`./store`) or a folder's index. */
function sourceFile(root: string, path: string): string {
  if (/\.(ts|js|json|html|css)$/.test(path)) return path.replace(/\.js$/, ".ts");
  return existsSync(join(root, `${path}.ts`)) ? `${path}.ts` : `${path}/index.ts`;
}

/**
 * The import cycles among the graph's own files, each as the path that closes it
 * (`a.ts → b.ts → a.ts`). Tarjan's strongly connected components find every file on a cycle;
 * one shortest cycle is reported per component so the message names a path to cut.
 */
export function findCycles(graph: ImportGraph): string[][] {
  const edges = (file: string): string[] => (graph.get(file) ?? []).filter((to) => graph.has(to));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next++;
    stack.push(file);
    onStack.add(file);
    for (const to of edges(file)) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(file, Math.min(low.get(file)!, index.get(to)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || edges(file).includes(file)) components.push(component);
    }
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return components.map((component) => shortestCycle(component.sort()[0]!, new Set(component), edges));
}

function shortestCycle(start: string, within: Set<string>, edges: (file: string) => string[]): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let at = 0; at < queue.length; at++) {
    const file = queue[at]!;
    for (const to of edges(file)) {
      if (!within.has(to)) continue;
      if (to === start) {
        const path = [start];
        for (let step = file; step !== start; step = previous.get(step)!) path.splice(1, 0, step);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, file);
        queue.push(to);
      }
    }
  }
  return [start, start];
}
