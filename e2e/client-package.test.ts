// ursa-client as a user gets it: `npm pack` in clients/ts, the tarball installed into an empty
// project (offline), and e2e/client-suite.ts run there by Node, Deno and Bun against the
// compiled binary. Nothing here imports the package from the repository.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";
import type { ScenarioName } from "./client-suite.ts";

const root = resolve(import.meta.dirname, "..");
const DENO = resolve(root, "node_modules/.bin/deno");
const BUN = resolve(root, "node_modules/.bin/bun");
let ursa: UrsaProcess;
let project: string;

/** Packs clients/ts and installs the tarball, with the compiled suite and a runner beside it. */
export function installPackedClient(): string {
  const dir = mkdtempSync(join(tmpdir(), "ursa-client-project-"));
  // prepack builds dist/ with tsc first.
  execFileSync("npm", ["pack", "--pack-destination", dir, "--silent"], { cwd: join(root, "clients/ts"), stdio: ["ignore", "pipe", "inherit"] });
  const tarball = readdirSync(dir).find((f) => /^ursa-client-0\.1\.0\.tgz$/.test(f));
  if (!tarball) throw new Error(`npm pack made no ursa-client-0.1.0.tgz in ${dir}`);
  // The one dependency, eventsource-parser, packed from the repository's own install: npm's cache
  // holds its tarball but not its registry metadata, so an offline install could not resolve it.
  // With network, `npm install ./ursa-client-0.1.0.tgz` alone fetches the same package.
  execFileSync("npm", ["pack", "--pack-destination", dir, "--silent"], { cwd: join(root, "node_modules/eventsource-parser"), stdio: ["ignore", "pipe", "inherit"] });
  const parser = readdirSync(dir).find((f) => f.startsWith("eventsource-parser-"))!;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "empty-project", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", `./${parser}`, `./${tarball}`], { cwd: dir, stdio: ["ignore", "pipe", "inherit"] });
  // The suite, compiled to plain JS; "ursa-client" stays an import, resolved in this project.
  execFileSync(BUN, ["build", join(root, "e2e/client-suite.ts"), "--external", "ursa-client", "--format", "esm", "--outfile", join(dir, "suite.js")], { stdio: ["ignore", "pipe", "inherit"] });
  writeFileSync(
    join(dir, "run.js"),
    `import { scenarios } from "./suite.js";\nconst [name, base] = (globalThis.Deno ? Deno.args : process.argv.slice(2));\nconsole.log(await scenarios[name](base));\n`,
  );
  return dir;
}

function run(command: string, args: string[], name: ScenarioName): string {
  const result = spawnSync(command, [...args, "run.js", name, ursa.url], { cwd: project, encoding: "utf8", timeout: 45_000, env: { ...process.env, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" } });
  expect(result.stderr + (result.error?.message ?? ""), `${command} ${name}`).toBe("");
  expect(result.status, `${command} ${name}: ${result.stdout}`).toBe(0);
  return result.stdout.trim();
}

beforeAll(async () => {
  [ursa, project] = await Promise.all([startUrsa(), Promise.resolve().then(installPackedClient)]);
}, 120_000);

afterAll(async () => {
  await ursa?.stop();
  ursa?.cleanup();
  if (project) rmSync(project, { recursive: true, force: true });
});

test("the tarball holds the built ESM, its declarations and the README, and no sources or tests", () => {
  const files = execFileSync("tar", ["-tzf", join(project, readdirSync(project).find((f) => f.startsWith("ursa-client-"))!)], { encoding: "utf8" }).trim().split("\n").sort();
  expect(files).toContain("package/dist/index.js");
  expect(files).toContain("package/dist/index.d.ts");
  expect(files).toContain("package/README.md");
  expect(files.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
  expect(files.filter((f) => f.includes(".test."))).toEqual([]);
});

// Node runs it as a user of the tarball would; Deno 2 comes from npm (the `deno` package ships the
// binary; Debian has none) and Bun from the repository's own devDependency. Both run over the
// same install and resolve "ursa-client" from the project's node_modules.
const runtimes: [string, string, string[]][] = [
  ["Node", "node", []],
  ["Deno", DENO, ["run", "--allow-net", "--allow-read", "--allow-env"]],
  ["Bun", BUN, ["run"]],
];

test("Deno is there to run the suite", () => {
  expect(execFileSync(DENO, ["--version"], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })).toMatch(/^deno 2\./);
});

describe.each(runtimes)("%s, from the packed tarball", (runtime, command, args) => {
  test("[CW] Prefix-count compare-and-set: 8 writers x 50 commits of 1-3 events, every commit validated against everything before it, nothing lost or doubled", { timeout: 60_000 }, () => {
    const line = run(command, args, "prefixCount");
    expect(line).toMatch(/^400 commits, \d+ events, \d+ Stream-Seq 409s retried$/);
    console.log(`[client-package] ${runtime} prefixCount: ${line}`);
  });
  test("[CW] Publishing committed facts: two publishers across a takeover at a higher epoch, facts 0..99 once and in order", { timeout: 30_000 }, () => {
    expect(run(command, args, "outbox")).toBe("100 facts once and in order; B skipped 2, A fenced at epoch 2");
  });
  test("[CW] Guarding against a recreated stream: a long-poll reader, an SSE subscriber and a writer all throw IncarnationMismatch", { timeout: 30_000 }, () => {
    expect(run(command, args, "incarnation")).toMatch(/^writer, long-poll reader and SSE subscriber refused with 412/);
  });
  test("[CW] Prefix-count step 3: a compaction, then a new writer counts on from the snapshot", { timeout: 30_000 }, () => {
    expect(run(command, args, "compaction")).toBe("compacted at count 6; new writer committed at 6, first writer at 7");
  });
});
