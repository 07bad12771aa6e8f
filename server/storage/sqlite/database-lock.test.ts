import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inTempDir } from "../../testing/temp-dir";
import { DatabaseInUseError, lockDatabase } from "./database-lock";
import { DatabaseDamagedError, openDatabase } from "./open-database";

/** Takes the lock in a child process; what it got. */
function tryInAnotherProcess(path: string): string {
  const script = `
    const { lockDatabase } = await import(${JSON.stringify(join(import.meta.dir, "database-lock.ts"))});
    try { console.log(lockDatabase(${JSON.stringify(path)}).held.split(" on ")[0]); } catch (e) { console.log(e.constructor.name); }`;
  const child = Bun.spawnSync([process.execPath, "-e", script]);
  return child.stdout.toString().trim();
}

describe.skipIf(process.platform !== "linux")("the single-process lock on Linux", () => {
  test("is an OFD lock on the database file: a second one is refused, with no lock file to delete; released, it can be taken again", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      const lock = lockDatabase(path);
      expect(lock.held).toBe(`an OFD lock on ${path}`);
      rmSync(`${path}-lock`, { force: true });
      expect(() => lockDatabase(path)).toThrow(DatabaseInUseError);
      // Another process meets the kernel's lock, not this process's bookkeeping.
      expect(tryInAnotherProcess(path)).toBe("DatabaseInUseError");
      lock.release();
      expect(tryInAnotherProcess(path)).toBe("an OFD lock");
      const again = lockDatabase(path);
      again.release();
    });
  });
});

describe("opening", () => {
  test("an emptied database beside a used one's files is refused, naming them; an empty file alone opens as a new database", async () => {
    await inTempDir(async (dir) => {
      const path = join(dir, "ursa.sqlite");
      writeFileSync(path, "");
      writeFileSync(`${path}-wal`, "x".repeat(100));
      expect(() => openDatabase(path)).toThrow(DatabaseDamagedError);
      expect(() => openDatabase(path)).toThrow(/^ursa\.sqlite is empty \(0 bytes\) but ursa\.sqlite-wal \(100 bytes\) is beside it/);
      // The refusal let go of the lock.
      rmSync(`${path}-wal`);
      const opened = openDatabase(path);
      expect(opened.db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
      opened.db.close();
      opened.lock?.release();
    });
  });
});
