import { describe, expect, test } from "bun:test";
import { ClientShares } from "./client-share";

/** Requests from named clients, and a count of how often a request's client was asked for. */
function clients() {
  const from = new Map<Request, string>();
  let asked = 0;
  const req = (client: string) => {
    const r = new Request("http://ursa.test/b/s");
    from.set(r, client);
    return r;
  };
  const clientOf = (r: Request) => (asked++, from.get(r)!);
  return { req, clientOf, asked: () => asked };
}

describe("ClientShares", () => {
  test("a client holds at most its share; another client is not affected, and a place left is free again", () => {
    const c = clients();
    const shares = new ClientShares(2, c.clientOf);
    const a = [c.req("a"), c.req("a"), c.req("a")];
    let inProgress = 0;
    const enter = (r: Request) => shares.enter(r, ++inProgress) || (inProgress--, false);
    expect(a.map(enter)).toEqual([true, true, false]);
    const b = c.req("b");
    expect(enter(b)).toBe(true);
    shares.leave(a[0]!);
    inProgress--;
    expect([shares.of("a"), enter(a[2]!), shares.of("a")]).toEqual([1, true, 2]);
    shares.leave(a[1]!);
    shares.leave(a[2]!);
    expect(shares.of("a")).toBe(0);
  });

  test("while no more requests are in progress than one share, no client is named; past that, the ones in progress are named and counted", () => {
    const c = clients();
    const shares = new ClientShares(3, c.clientOf);
    const first = [c.req("a"), c.req("a"), c.req("a")];
    first.forEach((r, i) => expect(shares.enter(r, i + 1)).toBe(true));
    expect(c.asked()).toBe(0);
    // A fourth from the same client: the three before it are named, and it is refused.
    expect(shares.enter(c.req("a"), 4)).toBe(false);
    expect(shares.of("a")).toBe(3);
    expect(shares.enter(c.req("b"), 4)).toBe(true);
    // Named requests stay counted until they are done, even once few are in progress.
    for (const r of first) shares.leave(r);
    expect(shares.of("a")).toBe(0);
    expect(shares.of("b")).toBe(1);
  });
});
