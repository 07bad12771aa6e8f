// What a user sees when ursa cannot start: one line naming the problem and exit status 1, not a
// stack with a screen of source. Above all, a second ursa on the same data directory is refused:
// each process decides writes against its own in-memory state, so two would break Stream-Seq and
// producer guarantees. A kill -9 of the first frees the directory at once.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { BINARY, startUrsa, type UrsaProcess } from "./server-process.ts";

const dirs: string[] = [];
const running: UrsaProcess[] = [];
afterAll(async () => {
  for (const u of running) await u.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "ursa-start-"));
  dirs.push(dir);
  return dir;
}

/** Runs the binary to its exit (it must not start), and returns its status and output. */
function failedStart(args: string[]) {
  const r = spawnSync(BINARY, ["--port", "0", ...args], { encoding: "utf8", timeout: 10_000 });
  return { status: r.status, stdout: r.stdout, lines: r.stderr.trim().split("\n") };
}

test("a second ursa on the same data directory exits 1; after kill -9 of the first, it starts", { timeout: 20_000 }, async () => {
  const dir = scratch();
  const first = await startUrsa({ dataDir: dir });
  running.push(first);
  const second = failedStart(["--data", dir]);
  expect(second.status).toBe(1);
  expect(second.stdout).not.toContain("listening");
  expect(second.lines).toEqual([expect.stringMatching(/^ursa: cannot open the database .*ursa\.sqlite: another ursa process is using it/)]);

  await first.kill();
  const third = await startUrsa({ dataDir: dir });
  running.push(third);
  expect((await fetch(`${third.url}/e2e-start/s`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
});

test("a file that is not a database, and a port in use, each get one line and exit 1", { timeout: 20_000 }, async () => {
  const dir = scratch();
  writeFileSync(join(dir, "ursa.sqlite"), "this is not a SQLite database, just some text ".repeat(200));
  const corrupt = failedStart(["--data", dir]);
  expect(corrupt.status).toBe(1);
  expect(corrupt.lines).toEqual([expect.stringMatching(/^ursa: cannot open the database .*: file is not a database$/)]);

  const holder = net.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => holder.once("listening", r));
  const port = String((holder.address() as net.AddressInfo).port);
  const busy = failedStart(["--memory", "--port", port]);
  holder.close();
  expect(busy.status).toBe(1);
  expect(busy.lines).toEqual([expect.stringMatching(new RegExp(`^ursa: cannot listen on 127\\.0\\.0\\.1:${port}: `))]);
});
