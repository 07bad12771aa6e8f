// npm run release, for the one platform this machine can run: the linux-x64 binary is built the
// way the release builds it (npm test has just built the console), its checksum is in SHA256SUMS,
// and it runs: it starts, takes a write and serves it back. The other platforms' builds need
// their Bun runtimes from the npm registry and cannot run here; `npm run release` builds them.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";

const ROOT = resolve(import.meta.dirname, "..");
const out = mkdtempSync(join(tmpdir(), "ursa-release-test-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

test.skipIf(process.platform !== "linux" || process.arch !== "x64")("the linux-x64 release binary is checksummed and serves requests", { timeout: 90_000 }, async () => {
  const build = spawnSync("node", ["scripts/release.mjs", "--only", "linux-x64", "--out", out, "--no-web-build"], { cwd: ROOT, encoding: "utf8", timeout: 80_000 });
  expect(build.status, build.stderr).toBe(0);
  const version = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
  const name = `ursa-${version}-linux-x64`;
  expect(readdirSync(out).sort()).toEqual(["SHA256SUMS", name]);
  const digest = createHash("sha256").update(readFileSync(join(out, name))).digest("hex");
  expect(readFileSync(join(out, "SHA256SUMS"), "utf8")).toBe(`${digest}  ${name}\n`);

  const binary = join(out, name);
  expect(spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout).toBe(`${version}\n`);
  const child = spawn(binary, ["--memory", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise<string>((resolveUrl, reject) => {
      let log = "";
      const timer = setTimeout(() => reject(new Error(`no start-up line in 10 s:\n${log}`)), 10_000);
      child.stdout.on("data", (d) => {
        log += d;
        const m = /listening (http:\/\/\S+)/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolveUrl(m[1]!);
        }
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}:\n${log}`)));
    });
    const stream = `${url}/release-b/s`;
    expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "from the release" })).status).toBe(201);
    expect(await (await fetch(`${stream}?offset=-1`)).text()).toBe("from the release");
    // The console is embedded.
    expect(await (await fetch(`${url}/ui/`)).text()).toContain("<!doctype html>");
  } finally {
    child.kill("SIGTERM");
  }
});
