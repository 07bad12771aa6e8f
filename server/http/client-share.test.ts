import { describe, expect, test } from "bun:test";
import { ClientShares } from "./client-share";

describe("ClientShares", () => {
  test("a client holds at most its share; another client is not affected, and a place left is free again", () => {
    const shares = new ClientShares(2);
    expect([shares.enter("a"), shares.enter("a"), shares.enter("a")]).toEqual([true, true, false]);
    expect(shares.enter("b")).toBe(true);
    shares.leave("a");
    expect([shares.of("a"), shares.enter("a"), shares.of("a")]).toEqual([1, true, 2]);
    shares.leave("a");
    shares.leave("a");
    expect(shares.of("a")).toBe(0);
  });
});
