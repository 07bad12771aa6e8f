// What a user sees when ursa cannot start: one line naming the problem and what to do, exit
// status 1, not a stack with a screen of source, and nothing left behind that the attempt created.
// Above all, a second ursa on the same data directory is refused: each process decides writes
// against its own in-memory state, so two would break Stream-Seq and producer guarantees. A
// kill -9 of the first frees the directory at once.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { expect, test } from "vitest";
import { scratchSpace } from "./scratch.ts";
import { BINARY, startUrsa } from "./server-process.ts";

const space = scratchSpace("ursa-start-");
const scratch = () => space.dir();

/** Runs the binary to its exit (it must not start), and returns its status and output. */
function failedStart(args: string[], asUser?: number) {
  const [cmd, argv] = asUser === undefined ? [BINARY, ["--port", "0", ...args]] : ["setpriv", [`--reuid=${asUser}`, `--regid=${asUser}`, "--clear-groups", BINARY, "--port", "0", ...args]];
  const r = spawnSync(cmd, argv, { encoding: "utf8", timeout: 10_000 });
  return { status: r.status, stdout: r.stdout, lines: r.stderr.trim().split("\n") };
}

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

test("a second ursa on the same data directory exits 1; after kill -9 of the first, it starts", { timeout: 20_000 }, async () => {
  const dir = scratch();
  const first = await startUrsa({ dataDir: dir });
  space.keep(first);
  const second = failedStart(["--data", dir]);
  expect(second.status).toBe(1);
  expect(second.stdout).not.toContain("listening");
  expect(second.lines).toEqual([expect.stringMatching(/^ursa: cannot open the database .*ursa\.sqlite: another ursa process is using it .*; stop that ursa, or give this one another directory with --data$/)]);

  await first.kill();
  const third = await startUrsa({ dataDir: dir });
  space.keep(third);
  expect((await fetch(`${third.url}/e2e-start/s`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
});

test("the lock is held by the kernel on ursa.sqlite itself: with every lock file deleted, a second ursa is still refused", { timeout: 20_000 }, async () => {
  const dir = scratch();
  const first = space.keep(await startUrsa({ dataDir: dir }));
  // What an operator might delete thinking it stale: there is no lock file, and removing every
  // lock-looking file changes nothing.
  for (const f of readdirSync(dir)) if (f.includes("lock")) rmSync(join(dir, f));
  const second = failedStart(["--data", dir]);
  expect(second.status).toBe(1);
  expect(second.stdout).not.toContain("listening");
  expect(second.lines).toEqual([expect.stringMatching(/^ursa: cannot open the database .*ursa\.sqlite: another ursa process is using it .*; stop that ursa, or give this one another directory with --data$/)]);
  const held = `lock="an OFD lock on ${join(dir, "ursa.sqlite")}"`;
  expect(await first.logged(held)).toContain(held);
  // The first is unharmed and still the only writer.
  expect((await fetch(`${first.url}/e2e-start/lock`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
});

test("an emptied ursa.sqlite beside the files of a used database is refused with how to recover; an empty one alone starts empty", { timeout: 20_000 }, async () => {
  const dir = scratch();
  const first = await startUrsa({ dataDir: dir });
  expect((await fetch(`${first.url}/e2e-start/kept`, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "data" })).status).toBe(201);
  expect(await first.stop()).toBe(0);
  const before = readdirSync(dir).sort();
  truncateSync(join(dir, "ursa.sqlite"), 0);

  const refused = failedStart(["--data", dir]);
  expect(refused.status).toBe(1);
  expect(refused.stdout).not.toContain("listening");
  expect(refused.lines).toEqual([
    expect.stringMatching(
      /^ursa: cannot open the database .*ursa\.sqlite: ursa\.sqlite is empty \(0 bytes\) but ursa\.sqlite-.* beside it: the database file was truncated or replaced\. Restore ursa\.sqlite from a backup \(keep the -wal file with it\), or move the data directory aside to start an empty server$/,
    ),
  ]);
  // Nothing was touched: the evidence stays for whoever restores the file.
  expect(readdirSync(dir).sort()).toEqual(before);
  expect(statSync(join(dir, "ursa.sqlite")).size).toBe(0);

  // The same empty file with nothing beside it is a database never used: a new, empty server.
  const fresh = scratch();
  writeFileSync(join(fresh, "ursa.sqlite"), "");
  const u = space.keep(await startUrsa({ dataDir: fresh }));
  expect((await fetch(`${u.url}/e2e-start/kept`)).status).toBe(404);
  expect((await fetch(`${u.url}/e2e-start/new`, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
});

test("a file that is not a database, and a port in use, each get one line and exit 1", { timeout: 20_000 }, async () => {
  const dir = scratch();
  writeFileSync(join(dir, "ursa.sqlite"), "this is not a SQLite database, just some text ".repeat(200));
  const corrupt = failedStart(["--data", dir]);
  expect(corrupt.status).toBe(1);
  expect(corrupt.lines).toEqual([expect.stringMatching(/^ursa: cannot open the database .*: file is not a database; move the file aside \(or restore it from a backup\), or choose another directory with --data$/)]);
  // The file was there before and stays; whatever else the attempt made is gone.
  expect(readdirSync(dir)).toEqual(["ursa.sqlite"]);

  const holder = net.createServer().listen(0, "127.0.0.1");
  await new Promise((r) => holder.once("listening", r));
  const port = String((holder.address() as net.AddressInfo).port);
  const fresh = join(scratch(), "not", "yet");
  const busy = failedStart(["--data", fresh, "--port", port]);
  holder.close();
  expect(busy.status).toBe(1);
  expect(busy.lines).toEqual([`ursa: cannot listen on 127.0.0.1:${port}: the address is in use (is another ursa running?); choose another with --port, or --port 0 for any free one`]);
  // The port is bound before the data directory is touched: nothing was created.
  expect(existsSync(join(fresh, ".."))).toBe(false);
});

test("a data directory ursa may not write is named as a permission problem, and nothing is left behind", { timeout: 20_000 }, () => {
  // Root may write anywhere; the binary runs as nobody then.
  const asUser = asRoot ? NOBODY : undefined;
  const parent = scratch();
  const readOnly = join(parent, "ro");
  mkdirSync(readOnly);
  chmodSync(readOnly, 0o555);
  chmodSync(parent, 0o755);

  const existing = failedStart(["--data", readOnly], asUser);
  expect(existing.status).toBe(1);
  expect(existing.lines).toEqual([`ursa: cannot write to the data directory ${readOnly}: permission denied; give ursa a directory it can write with --data DIR (or URSA_DATA), or use --memory`]);
  expect(readdirSync(readOnly)).toEqual([]);

  const below = failedStart(["--data", join(readOnly, "sub")], asUser);
  expect(below.status).toBe(1);
  expect(below.lines).toEqual([`ursa: cannot create the data directory ${join(readOnly, "sub")}: permission denied; give ursa a directory it can write with --data DIR (or URSA_DATA), or use --memory`]);
  expect(readdirSync(readOnly)).toEqual([]);
});

test.skipIf(!asRoot)("a data directory on a read-only file system is named as such", { timeout: 20_000 }, () => {
  const mountPoint = scratch();
  execFileSync("mount", ["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", mountPoint]);
  try {
    const r = failedStart(["--data", mountPoint]);
    expect(r.status).toBe(1);
    expect(r.lines).toEqual([`ursa: cannot write to the data directory ${mountPoint}: the file system is read-only; give ursa a directory it can write with --data DIR (or URSA_DATA), or use --memory`]);
  } finally {
    execFileSync("umount", [mountPoint]);
  }
});
