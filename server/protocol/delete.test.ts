import { describe, expect, test } from "bun:test";
import { hasExpired, planDelete } from "./delete";
import { ProducerTable } from "./producer-table";
import { producer, streamState } from "./testing-state";
import type { StreamState } from "./state";

const forkOf = (source: StreamState, overrides: Partial<StreamState> = {}) =>
  streamState({ id: source.id + 1, name: `fork-of-${source.name}`, fork: { sourceKey: `${source.bucket}/${source.name}`, sourceId: source.id, offset: 0, subOffset: 0 }, ...overrides });

describe("planDelete (spec §7.4)", () => {
  test("a stream no fork reads is hard-deleted, alone", () => {
    const s = streamState();
    expect(planDelete(s, [])).toEqual({ soft: false, effects: [{ kind: "hard-delete", state: s }] });
  });

  test("a stream live forks read is soft-deleted: its producers, attributes and snapshot go, its bytes stay", () => {
    const s = streamState({ forkRefs: 2, attrsId: 7, producers: ProducerTable.from([["p", producer(1, 3)]]), snapshot: { blobId: 4, offset: 5, contentType: "text/plain", digest: "d", size: 1 } });
    const plan = planDelete(s, []);
    expect(plan.soft).toBe(true);
    expect(plan.effects).toEqual([{ kind: "soft-delete", state: s, next: { ...s, softDeleted: true, producers: ProducerTable.EMPTY, attrsId: null, snapshot: null } }]);
    // The state handed in is a value the caller keeps: never changed in place.
    expect(s.producers.size).toBe(1);
  });

  test("deleting a fork releases its source, which stays while it is live or other forks read it", () => {
    const live = streamState({ id: 10, name: "src", forkRefs: 1 });
    const fork = forkOf(live);
    expect(planDelete(fork, [live]).effects).toEqual([{ kind: "hard-delete", state: fork }, { kind: "release-source", next: { ...live, forkRefs: 0 } }]);
    const shared = streamState({ id: 10, name: "src", forkRefs: 2, softDeleted: true });
    expect(planDelete(forkOf(shared), [shared]).effects[1]).toEqual({ kind: "release-source", next: { ...shared, forkRefs: 1 } });
  });

  test("the last fork of a soft-deleted source takes it along, up the chain to the first source still held", () => {
    const root = streamState({ id: 1, name: "root", forkRefs: 1 });
    const middle = forkOf(root, { id: 2, name: "middle", forkRefs: 1, softDeleted: true });
    const leaf = forkOf(middle, { id: 3, name: "leaf" });
    expect(planDelete(leaf, [middle, root]).effects).toEqual([
      { kind: "hard-delete", state: leaf },
      { kind: "hard-delete", state: { ...middle, forkRefs: 0 } },
      { kind: "release-source", next: { ...root, forkRefs: 0 } },
    ]);
  });

  test("a source that is missing or another incarnation ends the chain", () => {
    const source = streamState({ id: 10, name: "src", forkRefs: 1, softDeleted: true });
    const fork = forkOf(source);
    expect(planDelete(fork, [undefined]).effects).toEqual([{ kind: "hard-delete", state: fork }]);
    expect(planDelete(fork, [{ ...source, id: 99 }]).effects).toEqual([{ kind: "hard-delete", state: fork }]);
  });
});

describe("hasExpired (spec §7.1)", () => {
  test("a stream expires at its TTL after its last touch, or at its Expires-At; a soft-deleted source never does", () => {
    const ttl = streamState({ ttlSeconds: 10, touchedAtMs: 1_000 });
    expect([hasExpired(ttl, 10_999), hasExpired(ttl, 11_000)]).toEqual([false, true]);
    const at = streamState({ expiresAtMs: 5_000 });
    expect([hasExpired(at, 4_999), hasExpired(at, 5_000)]).toEqual([false, true]);
    expect(hasExpired({ ...ttl, softDeleted: true }, 1e12)).toBe(false);
    expect(hasExpired(streamState(), 1e12)).toBe(false);
  });
});
