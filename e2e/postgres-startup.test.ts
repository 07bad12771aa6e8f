// What a user sees when ursa --postgres cannot start: one line saying why, exit status 1. A
// database written by a newer ursa is refused rather than misread; --memory cannot be combined.
import { spawn } from "node:child_process";
import { afterAll, beforeAll, expect, test } from "vitest";
import { clusterPerFile } from "../server/testing/pg-cluster.ts";
import { BINARY, startUrsa } from "./server-process.ts";

const cluster = clusterPerFile({ beforeAll, afterAll });

/** Runs the binary to its exit (it must not start). */
function failedStart(args: string[]): Promise<{ status: number | null; lines: string[] }> {
  return new Promise((resolve) => {
    const child = spawn(BINARY, ["--port", "0", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", (status) => {
      clearTimeout(timer);
      resolve({ status, lines: stderr.trim().split("\n") });
    });
  });
}

test("a database that cannot be reached is one line naming it, without its password, and exit 1", async () => {
  const { status, lines } = await failedStart(["--postgres", `postgres://ursa:s3cret@127.0.0.1:${cluster().port}/no_such_database`]);
  expect(status).toBe(1);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain("cannot open the PostgreSQL database postgres://ursa:***@127.0.0.1");
  expect(lines[0]).not.toContain("s3cret");
}, 30_000);

test("--postgres with --memory is refused", async () => {
  const { status, lines } = await failedStart(["--postgres", cluster().url, "--memory"]);
  expect(status).toBe(1);
  expect(lines).toEqual(["ursa: --postgres and --memory exclude each other: choose where the streams are kept"]);
}, 30_000);

test("a database a newer ursa has written is refused, and one this ursa wrote starts again with its streams", async () => {
  const url = await cluster().createDatabase("startup_newer");
  const first = await startUrsa({ args: ["--postgres", url] });
  expect((await fetch(`${first.url}/kept/s`, { method: "PUT", body: "x", headers: { "content-type": "text/plain" } })).status).toBe(201);
  await first.stop();
  first.cleanup();
  const again = await startUrsa({ args: ["--postgres", url] });
  expect(await (await fetch(`${again.url}/kept/s?offset=-1`)).text()).toBe("x");
  await again.stop();
  again.cleanup();
  await cluster().psql("startup_newer", "UPDATE ursa_meta SET value = (value::int + 1)::text WHERE key = 'schema_version'");
  const { status, lines } = await failedStart(["--postgres", url]);
  expect(status).toBe(1);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/holds ursa schema version \d+, newer than this ursa's/);
}, 60_000);
