import { describe, expect, test } from "bun:test";
import type { StoredSubscription } from "../../storage/subscriptions";
import { SubscriptionListReads } from "./list-reads";

/** A list store whose reads the test finishes by hand, each with the list as it was when the read began. */
function store() {
  let list = ["a"];
  const pending: (() => void)[] = [];
  const read = () => {
    const then = list.map((id) => ({ id }) as unknown as StoredSubscription);
    return new Promise<StoredSubscription[]>((resolve) => pending.push(() => resolve(then)));
  };
  return { read, pending, set: (ids: string[]) => (list = ids) };
}
const ids = (all: readonly StoredSubscription[]) => all.map((s) => (s as unknown as { id: string }).id).join(",");

describe("SubscriptionListReads", () => {
  test("changes that arrive while a read is in flight share the next read, which is begun after them", async () => {
    const s = store();
    const seen: string[] = [];
    const reads = new SubscriptionListReads(s.read, () => undefined);
    reads.request((all) => seen.push(`1:${ids(all)}`));
    await Promise.resolve();
    expect(s.pending.length).toBe(1);
    // A subscription saved now, and then two appends: they must not take the read begun before them.
    s.set(["a", "b"]);
    reads.request((all) => seen.push(`2:${ids(all)}`));
    reads.request((all) => seen.push(`3:${ids(all)}`));
    expect(s.pending.length).toBe(1);
    s.pending.shift()!();
    await Bun.sleep(0);
    expect(seen).toEqual(["1:a"]);
    expect(s.pending.length).toBe(1);
    s.pending.shift()!();
    await Bun.sleep(0);
    expect(seen).toEqual(["1:a", "2:a,b", "3:a,b"]);
    expect(s.pending.length).toBe(0);
  });

  test("the changes of one commit, reported in one turn, share one read", async () => {
    const s = store();
    const seen: string[] = [];
    const reads = new SubscriptionListReads(s.read, () => undefined);
    for (let i = 0; i < 8; i++) reads.request((all) => seen.push(`${i}:${ids(all)}`));
    await Promise.resolve();
    expect(s.pending.length).toBe(1);
    s.pending.shift()!();
    await Bun.sleep(0);
    expect(seen).toEqual(Array.from({ length: 8 }, (_, i) => `${i}:a`));
    expect(s.pending.length).toBe(0);
  });

  test("a failed read is reported and the changes after it still get theirs", async () => {
    let fail = true;
    const errors: unknown[] = [];
    const seen: number[] = [];
    const reads = new SubscriptionListReads(async () => {
      if (fail) throw new Error("down");
      return [];
    }, (e) => errors.push(e));
    reads.request(() => seen.push(1));
    await Bun.sleep(0);
    fail = false;
    reads.request((all) => seen.push(all.length + 2));
    await Bun.sleep(0);
    expect(errors.length).toBe(1);
    expect(seen).toEqual([2]);
  });
});
