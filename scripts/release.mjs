#!/usr/bin/env node
// npm run release [-- --only linux-x64,… --out DIR --no-web-build]: the binaries people
// download, one per platform, and SHA256SUMS beside them (`sha256sum -c SHA256SUMS` checks them).
//
// Bun cross-compiles with --target, but it would download the other platforms' runtimes from
// GitHub. They are npm packages too (@oven/bun-*), of the exact Bun version installed here, so they
// come from the npm registry through `npm pack` into node_modules/.cache, once.
import { createHash } from "node:crypto";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compile, ROOT } from "./compile.mjs";

/** What is shipped: the platform name in the file name, Bun's target, the runtime's npm package. */
export const PLATFORMS = [
  { name: "linux-x64", target: "bun-linux-x64", pkg: "@oven/bun-linux-x64", host: ["linux", "x64"] },
  { name: "linux-arm64", target: "bun-linux-arm64", pkg: "@oven/bun-linux-aarch64", host: ["linux", "arm64"] },
  { name: "darwin-arm64", target: "bun-darwin-arm64", pkg: "@oven/bun-darwin-aarch64", host: ["darwin", "arm64"] },
  { name: "windows-x64", target: "bun-windows-x64", pkg: "@oven/bun-windows-x64", host: ["win32", "x64"], exe: true },
];

const { values: opts } = parseArgs({
  options: { only: { type: "string" }, out: { type: "string", default: "release" }, "no-web-build": { type: "boolean", default: false } },
  strict: true,
});
const chosen = opts.only ? opts.only.split(",").map((n) => PLATFORMS.find((p) => p.name === n) ?? fail(`unknown platform ${n}; one of ${PLATFORMS.map((p) => p.name).join(", ")}`)) : PLATFORMS;
const out = resolve(ROOT, opts.out);
const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
const bunVersion = JSON.parse(readFileSync(join(ROOT, "node_modules/bun/package.json"), "utf8")).version;
const cache = join(ROOT, "node_modules/.cache/ursa-release", `bun-${bunVersion}`);

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

function run(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", ...options });
  if (r.status !== 0) fail(`${cmd} ${args.join(" ")} failed (exit ${r.status ?? r.signal}):\n${r.stderr ?? ""}`);
  return r.stdout ?? "";
}

/** The Bun executable for a platform: this one's own, or the npm package's, fetched once into the cache. */
function runtimeFor(platform) {
  if (process.platform === platform.host[0] && process.arch === platform.host[1]) return resolve(ROOT, "node_modules/bun/bin/bun.exe");
  const dir = join(cache, platform.pkg.replace("/", "+"));
  const binary = join(dir, "package", "bin", platform.exe ? "bun.exe" : "bun");
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  console.log(`release: fetching ${platform.pkg}@${bunVersion} from the npm registry`);
  // npm checks the tarball against the registry's integrity hash.
  const tarball = run("npm", ["pack", `${platform.pkg}@${bunVersion}`, "--pack-destination", dir, "--silent"]).trim().split("\n").at(-1);
  run("tar", ["-xzf", join(dir, tarball), "-C", dir, `package/bin/${platform.exe ? "bun.exe" : "bun"}`]);
  rmSync(join(dir, tarball));
  return binary;
}

const sha256 = (path) => createHash("sha256").update(readFileSync(path)).digest("hex");

if (!opts["no-web-build"]) run(resolve(ROOT, "node_modules/.bin/vite"), ["build", "web"], { stdio: "inherit" });
else if (!existsSync(join(ROOT, "web/dist/index.html"))) fail("web/dist is not built; run without --no-web-build");

mkdirSync(out, { recursive: true });
const sums = [];
for (const platform of chosen) {
  const file = `ursa-${version}-${platform.name}${platform.exe ? ".exe" : ""}`;
  // Bun writes source maps beside the executable (they are embedded in it as well): build aside
  // and keep only the executable.
  const staging = mkdtempSync(join(out, ".staging-"));
  try {
    compile({ outfile: join(staging, file), target: platform.target, runtime: runtimeFor(platform) });
    renameSync(join(staging, file), join(out, file));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  sums.push(`${sha256(join(out, file))}  ${file}`);
  console.log(`release: ${relative(ROOT, join(out, file))} (${(statSync(join(out, file)).size / 1e6).toFixed(1)} MB)`);
}
writeFileSync(join(out, "SHA256SUMS"), `${sums.join("\n")}\n`);
console.log(`release: ${relative(ROOT, join(out, "SHA256SUMS"))}: ${sums.length} of ${PLATFORMS.length} platforms, ursa ${version} on Bun ${bunVersion}`);
