// A disk that really fills up, under the binary: a small tmpfs holds the data directory. Writes
// past the space get 507 STORAGE_FULL and commit nothing, the process keeps serving, and once
// space is freed writes succeed again. Mounting needs root, which CI has; elsewhere the test is
// reported as skipped.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const asRoot = process.getuid?.() === 0;
const mountPoint = mkdtempSync(join(tmpdir(), "ursa-full-"));
const filler = join(mountPoint, "filler");
let ursa: UrsaProcess | undefined;

beforeAll(() => {
  if (!asRoot) return;
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", mountPoint]);
  // Space set aside now and freed later, to show the server recovers without a restart.
  writeFileSync(filler, Buffer.alloc(3 * 1024 * 1024, 1));
});

afterAll(async () => {
  await ursa?.stop();
  if (asRoot) execFileSync("umount", [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const tail = async (url: string) => (await fetch(url, { method: "HEAD" })).headers.get("Stream-Next-Offset");

test.skipIf(!asRoot)("writes on a full disk get 507 STORAGE_FULL and commit nothing; freeing space lets them through", { timeout: 30_000 }, async () => {
  const dataDir = join(mountPoint, "data");
  mkdirSync(dataDir);
  ursa = await startUrsa({ dataDir });
  const stream = `${ursa.url}/e2e-full/s`;
  expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "application/octet-stream" } })).status).toBe(201);

  const chunk = new Uint8Array(64 * 1024).fill(7);
  let accepted = 0;
  let refused: Response | undefined;
  for (let i = 0; i < 200 && !refused; i++) {
    const res = await fetch(stream, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: chunk });
    if (res.status === 204) accepted++;
    else refused = res;
  }
  expect(accepted).toBeGreaterThan(0);
  expect(refused?.status).toBe(507);
  expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe("STORAGE_FULL");
  const tailWhenFull = await tail(stream);
  expect(Number(tailWhenFull!.split("_")[1])).toBe(accepted * chunk.length);

  // Still full: refused again, and nothing of it lands.
  expect((await fetch(stream, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: chunk })).status).toBe(507);
  expect(await tail(stream)).toBe(tailWhenFull);

  // The checkpoint thread cannot copy the WAL into the database now either: it says so once, not
  // on every 100 ms tick.
  await new Promise((r) => setTimeout(r, 600));
  expect(ursa.log().split("background checkpoint failed").length - 1).toBeLessThanOrEqual(1);

  // Freed space is shared with the checkpoint thread, which may take some of it first to copy the
  // WAL into the database: until the write fits it is refused whole, then it lands.
  rmSync(filler);
  let landed = false;
  for (let i = 0; i < 30 && !landed; i++) {
    const res = await fetch(stream, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: "after" });
    landed = res.status === 204;
    if (!landed) {
      expect(res.status).toBe(507);
      expect(await tail(stream)).toBe(tailWhenFull);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  expect(landed).toBe(true);
  const expected = Buffer.concat([...Array.from({ length: accepted }, () => chunk), Buffer.from("after")]);
  const readAll = async (url: string) => Buffer.from(await (await fetch(`${url}?offset=-1&max_bytes=8388608`)).arrayBuffer());
  // Buffer.equals: a deep toEqual over megabytes takes seconds.
  expect((await readAll(stream)).equals(expected)).toBe(true);
  expect(ursa.child.exitCode).toBeNull();
  expect(ursa.log()).toContain("storage is full");
  expect(ursa.log()).not.toContain("internal error");

  // The database came through the episode whole: after kill -9, exactly the accepted bytes.
  await ursa.kill();
  ursa = await startUrsa({ dataDir });
  expect((await readAll(`${ursa.url}/e2e-full/s`)).equals(expected)).toBe(true);
});
