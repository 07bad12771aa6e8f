// The binary as a command: --help, --version, a bad value from each source, where each value
// came from (--print-config), and the precedence flag > environment > config file > default, seen
// in what a running server does.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { expect, test } from "vitest";
import { scratchSpace } from "./scratch.ts";
import { BINARY, startUrsa } from "./server-process.ts";

const space = scratchSpace("ursa-cli-");
const scratch = () => space.dir();

/** Runs the binary to its exit, with only the environment given (and PATH). */
function ursa(args: string[], env: Record<string, string> = {}, cwd = scratch()) {
  const r = spawnSync(BINARY, args, { encoding: "utf8", timeout: 10_000, cwd, env: { PATH: process.env.PATH!, ...env } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, cwd };
}

const version = (JSON.parse(readFileSync(resolve(import.meta.dirname, "..", "package.json"), "utf8")) as { version: string }).version;

test("-h and --help print the options and exit 0; -v and --version print the version", () => {
  for (const flag of ["-h", "--help"]) {
    const r = ursa([flag]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout.startsWith(`ursa ${version}: a Durable Streams server in one file\n`)).toBe(true);
    for (const option of ["--port N", "--data DIR", "--max-connections N|auto", "--log-format text|json", "--config FILE", "--print-config"]) expect(r.stdout).toContain(option);
  }
  for (const flag of ["-v", "--version"]) expect(ursa([flag])).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: "" });
});

test("a bad value from a flag, the environment or the config file: one line naming it, exit 2, nothing created", () => {
  const cwd = scratch();
  writeFileSync(join(cwd, "bad.toml"), 'port = "http"\n');
  writeFileSync(join(cwd, "typo.toml"), "prot = 4437\n");
  const data = join(cwd, "data");
  const cases: [string[], Record<string, string>, string][] = [
    [["--port", "http"], {}, 'ursa: --port must be an integer from 0 to 65535, got "http" (ursa --help lists the options)'],
    [[], { URSA_PORT: "http" }, 'ursa: URSA_PORT must be an integer from 0 to 65535, got "http" (ursa --help lists the options)'],
    [["--config", "bad.toml"], {}, 'ursa: port in bad.toml must be an integer from 0 to 65535, got "http" (ursa --help lists the options)'],
    [[], { URSA_CONFIG: "typo.toml" }, 'ursa: unknown option "prot" in typo.toml (ursa --help lists the options)'],
    [["--sync", "sometimes"], {}, 'ursa: --sync must be full or normal, got "sometimes" (ursa --help lists the options)'],
    [["--prot", "1"], {}, "ursa: unknown option --prot (ursa --help lists the options)"],
  ];
  for (const [args, env, line] of cases) {
    const r = ursa(["--data", data, ...args], env, cwd);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`${line}\n`);
  }
  expect(existsSync(data)).toBe(false);
});

test("--print-config shows each value and where it came from: flag, then environment, then file, then default", () => {
  const cwd = scratch();
  writeFileSync(join(cwd, "ursa.toml"), 'port = 1111\nsync = "normal"\nhost = "127.0.0.1"\nmax_body_bytes = 1000\n');
  const r = ursa(["--print-config", "--config", "ursa.toml", "--port", "2222"], { URSA_SYNC: "full", URSA_READ_CACHE_MB: "8" }, cwd);
  expect(r.status).toBe(0);
  const lines = r.stdout.trimEnd().split("\n");
  expect(lines[0]).toBe(`# ursa ${version}: the configuration in effect, with ursa.toml`);
  const entry = (key: string) => lines.find((l) => l.startsWith(`${key} = `))?.replace(/ +#/, " #");
  expect(entry("port")).toBe("port = 2222 # --port");
  expect(entry("sync")).toBe('sync = "full" # URSA_SYNC');
  expect(entry("read-cache-mb")).toBe("read-cache-mb = 8 # URSA_READ_CACHE_MB");
  expect(entry("max-body-bytes")).toBe("max-body-bytes = 1000 # max-body-bytes in ursa.toml");
  expect(entry("memory")).toBe("memory = false # default");
  expect(entry("max-connections")).toMatch(/^max-connections = "auto" # default; auto is \d+ here$/);
  for (const l of lines.slice(1)) expect(l).toMatch(/^[a-z0-9-]+ = \S+ +# \S.*$/);
});

test("the running server takes a flag over the environment, the environment over the file, the file over the default", { timeout: 20_000 }, async () => {
  const cwd = scratch();
  const config = join(cwd, "ursa.toml");
  writeFileSync(config, 'sync = "normal"\nmax-body-bytes = 1000\nlong-poll-timeout-ms = 5000\n');
  const server = await startUrsa({ args: ["--config", config, "--max-body-bytes", "3000"], env: { URSA_MAX_BODY_BYTES: "2000", URSA_SSE_HEARTBEAT: "1s" } });
  space.keep(server);
  const info = (await (await fetch(`${server.url}/__ursula/api/info`)).json()) as { sync: string };
  // sync from the file; --max-body-bytes from the flag over env and file.
  expect(info.sync).toBe("normal");
  const stream = `${server.url}/e2e-cli/s`;
  expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  expect((await fetch(stream, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "x".repeat(2500) })).status).toBe(204);
  expect((await fetch(stream, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "x".repeat(3500) })).status).toBe(413);
  // The fixture's --long-poll-timeout-ms flag beats the file's 5000.
  const t0 = performance.now();
  expect((await fetch(`${stream}?offset=now&live=long-poll`)).status).toBe(204);
  expect(performance.now() - t0).toBeLessThan(4000);
});

test("the start-up line names the console, the start record the rest; shutdown logs a final line", { timeout: 20_000 }, async () => {
  const server = await startUrsa();
  const line = server.log().split("\n").find((l) => l.includes("listening"))!;
  const port = new URL(server.url).port;
  expect(line).toBe(`ursa listening http://127.0.0.1:${port} console http://127.0.0.1:${port}/ui/ data=${join(server.dataDir, "ursa.sqlite")}`);
  expect((await fetch(`${server.url}/ui/`)).status).toBe(200);
  expect(await server.stop()).toBe(0);
  server.cleanup();
  const log = server.log();
  expect(log).toMatch(new RegExp(`info  started version=${version.replace(/\./g, "\\.")} address=127\\.0\\.0\\.1:${port} data=\\S+ursa\\.sqlite sync=full auth=none `));
  expect(log.trimEnd().split("\n").at(-1)).toMatch(/ info  stopped signal=SIGTERM uptime_s=[0-9.]+$/);
});
