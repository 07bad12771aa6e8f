#!/usr/bin/env node
// Compiles the server and the console (web/dist, built first) into one executable with Bun.
// `node scripts/compile.mjs` builds dist/ursa for this machine (npm run build:bin); release.mjs
// calls compile() once per platform it ships.
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(import.meta.dirname, "..");
export const BUN = resolve(ROOT, "node_modules/.bin/bun");

/**
 * One executable. `target` is Bun's (bun-linux-arm64, …) and `runtime` the Bun binary of that
 * platform to build on; both absent, this machine's.
 */
export function compile({ outfile, target, runtime }) {
  const args = [
    "build",
    "--compile",
    "--minify",
    // Embedded in the executable, so an internal error's stack names the source, not minified code.
    "--sourcemap",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    // Bun's 16 KiB default cannot carry a full 16 KiB Stream-Attrs beside the other headers.
    "--compile-exec-argv=--max-http-header-size=32768",
    ...(target ? [`--target=${target}`] : []),
    ...(runtime ? [`--compile-executable-path=${runtime}`] : []),
    "server/main.ts",
    "server/storage/sqlite/checkpointer.ts",
    "server/storage/sqlite/snapshot-read-thread.ts",
    "server/storage/sqlite/integrity-check.ts",
    "--asset",
    "web/dist",
    "--outfile",
    outfile,
  ];
  const r = spawnSync(BUN, args, { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) throw new Error(`bun build for ${target ?? "this machine"} failed (exit ${r.status ?? r.signal})`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) compile({ outfile: "dist/ursa" });
