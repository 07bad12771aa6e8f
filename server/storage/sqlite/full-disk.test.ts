import { describe, expect, test } from "bun:test";
import { headroom } from "./disk-reserve";
import { nextAction, type SpaceNow } from "./full-disk";
import { StorageFault, WriteHealth } from "../write-health";

const MiB = 1024 * 1024;
const space = (s: Partial<SpaceNow>): SpaceNow => ({ free: 0, freelist: 0, reserveBytes: 64 * MiB, reserveMissing: 64 * MiB, canVacuum: true, walBytes: 0, ...s });

describe("what a full store does next", () => {
  test("the reserve is taken back only with room for it and a quarter of it besides", () => {
    expect(headroom(64 * MiB)).toBe(16 * MiB);
    expect(nextAction(space({ free: 80 * MiB }))).toBe("fill");
    expect(nextAction(space({ free: 80 * MiB - 1 }))).toBe("wait");
    // Writes resume once it is held and the room is still there.
    expect(nextAction(space({ free: 16 * MiB, reserveMissing: 0 }))).toBe("resume");
    expect(nextAction(space({ free: 16 * MiB - 1, reserveMissing: 0 }))).toBe("wait");
  });

  test("free pages inside the database are vacuumed back to the file system; they are not room for the WAL", () => {
    expect(nextAction(space({ free: 10 * MiB, freelist: 500 * MiB }))).toBe("vacuum");
    expect(nextAction(space({ free: 10 * MiB, freelist: 500 * MiB, reserveMissing: 0 }))).toBe("vacuum");
    // All of them, before writes resume: the WAL cannot grow into the ones left inside the file.
    expect(nextAction(space({ free: 80 * MiB, freelist: 20 * MiB }))).toBe("vacuum");
    expect(nextAction(space({ free: 16 * MiB, freelist: 4096, reserveMissing: 0 }))).toBe("vacuum");
    // A database without incremental vacuum keeps them: the store waits for the file system.
    expect(nextAction(space({ free: 10 * MiB, freelist: 500 * MiB, canVacuum: false }))).toBe("wait");
  });

  test("a WAL is room once its frames are copied: emptied after the free pages are given back, and only then", () => {
    expect(nextAction(space({ free: 10 * MiB, walBytes: 30 * MiB }))).toBe("truncate");
    expect(nextAction(space({ free: 10 * MiB, freelist: 4096, walBytes: 30 * MiB }))).toBe("vacuum");
    expect(nextAction(space({ free: 10 * MiB, freelist: 4096, walBytes: 30 * MiB, canVacuum: false }))).toBe("truncate");
    expect(nextAction(space({ free: 80 * MiB, walBytes: 30 * MiB }))).toBe("fill");
    expect(nextAction(space({ free: 16 * MiB, reserveMissing: 0, walBytes: 30 * MiB }))).toBe("resume");
  });

  test("without a reserve, a megabyte of room is enough; where free space cannot be known, the probe decides", () => {
    expect(nextAction(space({ reserveBytes: 0, reserveMissing: 0, free: MiB }))).toBe("resume");
    expect(nextAction(space({ reserveBytes: 0, reserveMissing: 0, free: MiB - 1 }))).toBe("wait");
    expect(nextAction(space({ free: null }))).toBe("resume");
  });
});

describe("write health", () => {
  const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
  const corrupt = Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT" });
  const readOnly = Object.assign(new Error("attempt to write a readonly database"), { code: "SQLITE_READONLY" });

  test("full refuses writes that add data, not those that free space, and ends only when room is found", () => {
    let fulls = 0;
    const h = new WriteHealth();
    h.whenFull(() => fulls++);
    h.failed(full);
    h.failed(full);
    expect([h.state, fulls]).toEqual(["full", 1]);
    expect(() => h.admitGrowth()).toThrow(StorageFault);
    expect(() => h.admitAny()).not.toThrow();
    // A delete that commits shows nothing about room for growth.
    h.succeeded();
    expect(h.state).toBe("full");
    h.recovered();
    expect(h.state).toBe("ok");
    expect(() => h.admitGrowth()).not.toThrow();
  });

  test("a read-only disk ends with the next write that succeeds; damage never ends, and refuses every write", () => {
    const h = new WriteHealth();
    h.failed(readOnly);
    expect(h.state).toBe("read-only");
    h.succeeded();
    expect(h.state).toBe("ok");
    h.failed(corrupt);
    expect([h.state, h.damage]).toEqual(["corrupt", "database disk image is malformed"]);
    expect(() => h.admitAny()).toThrow(StorageFault);
    h.succeeded();
    h.recovered();
    h.failed(full);
    expect(h.state).toBe("corrupt");
    // A refusal says nothing new about the disk.
    const fresh = new WriteHealth();
    fresh.failed(new StorageFault("corrupt", "stream x is damaged"));
    expect(fresh.state).toBe("ok");
  });
});
