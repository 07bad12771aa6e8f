import { describe, expect, test } from "bun:test";
import { CompactionLab, compactionSteps, compactionVerdict } from "./compactionLab";
import { fakeServer } from "./testing/fakeServer";

const noPause = async () => {};
const statuses = (lab: CompactionLab) => lab.lab.records.value.map((r) => r.exchanges.map((e) => e.response!.status));

describe("compaction lab", () => {
  test("snapshot with the count, retention, B counts on from it, C recovers from a 410: PASS", async () => {
    const { transport, streams } = fakeServer();
    const lab = new CompactionLab(transport, "lab1", { name: () => "c-1" });
    await lab.lab.runAll(noPause);
    const recs = lab.lab.records.value;
    expect(recs.every((r) => r.ok)).toBe(true);
    // A's and B's commits read to the tail first; C's recovery (readFromSnapshot) meets the 410 itself, then bootstraps.
    expect(statuses(lab)).toEqual([[201], [200, 204], [200, 204], [200], [204], [204], [200], [200, 204], [410], [410, 200]]);
    // B's Stream-Seq is the count the snapshot kept (5), plus the 0 messages after it.
    expect(recs[7]!.exchanges.at(-1)!.request.headers).toContainEqual(["Stream-Seq", "00000000000000000005"]);
    // The snapshot A published keeps the count with the state, at the offset its read ended.
    expect(JSON.parse(recs[4]!.exchanges[0]!.request.body!)).toEqual({ count: 5, state: { sum: 15 } });
    expect(recs[4]!.exchanges[0]!.request.path).toBe(`/lab1/c-1/snapshot/${recs[3]!.exchanges.at(-1)!.response!.headers.find(([k]) => k === "stream-next-offset")![1]}`);
    expect(streams.get("/lab1/c-1")!.lastSeq).toBe("00000000000000000005");
    const v = lab.verdict!;
    expect(v.ok).toBe(true);
    expect(v.rows.map((r) => r.ok)).toEqual([true, true]);
    expect(v.rows[1]!.what).toContain("recovered sum 21 of 21 over 6 of 6 events");
    // The plan named up front is what ran.
    expect(recs.map((r) => r.title)).toEqual(lab.lab.steps.map((s) => s.title));
  });

  test("without the count in the snapshot, B's count is too small and every retry answers 409: FAIL", async () => {
    const { transport, streams } = fakeServer();
    const lab = new CompactionLab(transport, "lab1", { name: () => "c-2" });
    lab.setWithoutCount(true);
    await lab.lab.runAll(noPause);
    const recs = lab.lab.records.value;
    // Every step answered as the rule says: the failure is the lab's point, not the server's.
    expect(recs.every((r) => r.ok)).toBe(true);
    expect(JSON.parse(recs[4]!.exchanges[0]!.request.body!)).toEqual({ state: { sum: 15 } });
    // B's commit and two retries, each reading on first (one read each) and answered 409; C still recovers.
    expect(statuses(lab)).toEqual([[201], [200, 204], [200, 204], [200], [204], [204], [200], [200, 409], [200, 409], [200, 409], [410], [200]]);
    for (const i of [7, 8, 9]) {
      const commit = recs[i]!.exchanges.at(-1)!;
      expect(commit.request.headers).toContainEqual(["Stream-Seq", "00000000000000000000"]);
      expect(commit.response!.headers).toContainEqual(["stream-last-seq", "00000000000000000003"]);
    }
    // Nothing of B's was committed.
    expect(streams.get("/lab1/c-2")!.msgs.length).toBe(5);
    const v = lab.verdict!;
    expect(v.ok).toBe(false);
    expect(v.rows[0]).toEqual({ who: "client B", ok: false, what: "never committed: 3 attempts with Stream-Seq 00000000000000000000, 00000000000000000000, 00000000000000000000 answered 409 against the stored 00000000000000000003" });
    expect(v.happened).toContain("every retry answers 409");
  });

  test("the verdict is judged from the answers, not assumed", () => {
    const ctx = { path: "/x/y", withoutCount: false, written: [{ n: 1 }], storedSeq: "00000000000000000000", a: { n: 1 }, b: { attempts: [] }, c: { recovered: { count: 1, sum: 1, messages: 0 } } };
    // B never committed: FAIL even though C recovered.
    expect(compactionVerdict(ctx).ok).toBe(false);
    const committed = { ...ctx, b: { attempts: [{ seq: "00000000000000000001", status: 204 }], committed: { seq: "00000000000000000001", before: 1 } }, written: [{ n: 1 }, { n: 6 }] };
    // C's sum is off by B's event: FAIL.
    expect(compactionVerdict(committed).ok).toBe(false);
    expect(compactionVerdict({ ...committed, c: { recovered: { count: 2, sum: 7, messages: 1 } } }).ok).toBe(true);
  });

  test("changing the pitfall starts a new run with its own steps", async () => {
    const { transport } = fakeServer();
    let n = 0;
    const lab = new CompactionLab(transport, "lab1", { name: () => `c-${++n}` });
    await lab.lab.step();
    lab.setWithoutCount(true);
    expect(lab.lab.records.value).toEqual([]);
    expect(lab.lab.ctx.path).toBe("/lab1/c-2");
    expect(lab.lab.steps.map((s) => s.title)).toEqual(compactionSteps(true).map((s) => s.title));
    expect(compactionSteps(true).length).toBe(compactionSteps(false).length + 2);
  });
});
