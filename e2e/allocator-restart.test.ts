// The binary starts itself again with the allocator's purge delay (server/ops/allocator-restart.ts):
// seen from outside, it is still the one process that was spawned, with its arguments, now running
// with the option in its environment, unless the user gave the option a value of their own.
import { readFileSync } from "node:fs";
import { afterEach, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let running: UrsaProcess | undefined;
afterEach(async () => {
  await running?.stop();
  running?.cleanup();
  running = undefined;
});

/** What /proc says the process runs with now: execve replaces both. */
function seen(pid: number): { env: string[]; argv: string[] } {
  const split = (file: string) => readFileSync(`/proc/${pid}/${file}`, "utf8").split("\0").filter((s) => s !== "");
  return { env: split("environ"), argv: split("cmdline") };
}

test("the spawned pid serves, with its arguments kept and MIMALLOC_PURGE_DELAY=5000 added", async () => {
  const env = { ...process.env };
  delete env.MIMALLOC_PURGE_DELAY;
  running = await startUrsa({ env: env as Record<string, string>, args: ["--log-level", "debug"] });
  expect((await fetch(`${running.url}/__ursula/health`)).status).toBe(200);
  const { env: after, argv } = seen(running.child.pid!);
  expect(after).toContain("MIMALLOC_PURGE_DELAY=5000");
  expect(argv).toEqual(running.child.spawnargs);
  expect(argv).toContain("--log-level");
});

test("a delay the user set is kept as it is", async () => {
  running = await startUrsa({ env: { MIMALLOC_PURGE_DELAY: "10" } });
  expect((await fetch(`${running.url}/__ursula/health`)).status).toBe(200);
  const { env } = seen(running.child.pid!);
  expect(env.filter((e) => e.startsWith("MIMALLOC_PURGE_DELAY="))).toEqual(["MIMALLOC_PURGE_DELAY=10"]);
});
