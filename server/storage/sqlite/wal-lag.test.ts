import { expect, test } from "bun:test";
import { WalLag, walLagLimits } from "./wal-lag";

const MiB = 1024 * 1024;

test("the limits follow what the reserve gives back when the disk fills; no reserve, no limits", () => {
  // An 8 MiB reserve keeps 1 MiB for a restart and gives 7 back.
  expect(walLagLimits(8 * MiB)).toEqual({ askAt: 1.75 * MiB, holdAt: 3.5 * MiB, lowBelow: 16 * MiB });
  expect(walLagLimits(0)).toBeNull();
});

test("on a disk with room, no lag asks early or holds writes", () => {
  const lag = new WalLag(walLagLimits(8 * MiB)!, () => 1024 * MiB);
  for (let i = 0; i < 100; i++) lag.committed(MiB);
  expect(lag.behind).toBe(100 * MiB);
  expect(lag.askNow()).toBe(false);
  expect(lag.mustHold()).toBe(false);
});

test("on a disk low on space, a lag asks for a checkpoint at once, then holds writes, until the checkpoint answers", () => {
  let free = 1024 * MiB;
  const lag = new WalLag(walLagLimits(8 * MiB)!, () => free);
  lag.committed(MiB);
  free = 10 * MiB;
  // Free space is looked at once per askAt bytes: this commit makes the second megabyte and looks.
  lag.committed(MiB);
  expect(lag.askNow()).toBe(true);
  expect(lag.mustHold()).toBe(false);
  lag.asked();
  lag.committed(2 * MiB);
  expect(lag.mustHold()).toBe(true);
  // The checkpoint copied what came before it was asked for but 4 KiB: the lag is what came after.
  lag.answered(4096);
  expect(lag.behind).toBe(2 * MiB + 4096);
  expect(lag.mustHold()).toBe(false);
});

test("a checkpoint that failed copied nothing: the lag stays", () => {
  const lag = new WalLag(walLagLimits(8 * MiB)!, () => 0);
  lag.committed(2 * MiB);
  lag.asked();
  lag.committed(2 * MiB);
  lag.answered(null);
  expect(lag.behind).toBe(4 * MiB);
  expect(lag.mustHold()).toBe(true);
});

test("where the platform cannot say what is free, nothing is held", () => {
  const lag = new WalLag(walLagLimits(8 * MiB)!, () => null);
  lag.committed(8 * MiB);
  expect(lag.mustHold()).toBe(false);
});
