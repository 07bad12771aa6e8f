import { describe, expect, test } from "bun:test";
import { createIncarnationLab } from "./incarnationLab";
import { createOutboxLab } from "./outboxLab";
import { fakeServer } from "./testing/fakeServer";

const noPause = async () => {};

describe("incarnation lab", () => {
  test("old token gets 412 with the new token on append, read and HEAD; missing stays 404", async () => {
    const { transport } = fakeServer();
    const lab = createIncarnationLab(transport, "lab1", () => "inc-1");
    await lab.runAll(noPause);
    const recs = lab.records.value;
    expect(recs.map((r) => r.exchanges[0]!.response!.status)).toEqual([201, 204, 204, 201, 412, 412, 412, 404, 412, 404]);
    expect(recs.every((r) => r.ok)).toBe(true);
    expect(lab.ctx.oldToken).not.toBe(lab.ctx.newToken);
    expect(recs[4]!.note).toContain(`new token ${lab.ctx.newToken}`);
  });
});

describe("outbox lab", () => {
  test("the new owner skips the already-published fact and fences the old owner", async () => {
    const { transport } = fakeServer();
    const lab = createOutboxLab(transport, "lab1", () => "ob-1");
    await lab.runAll(noPause);
    const recs = lab.records.value;
    expect(recs.map((r) => r.exchanges[0]?.response?.status ?? "-")).toEqual([201, 200, 200, 200, "-", 409, 200, 403, 200, 200, 200]);
    expect(recs.every((r) => r.ok)).toBe(true);
    expect(recs[5]!.note).toContain("fact 2 is already published. Go on to fact 4");
    // The skip reused Producer-Seq 0: the 409 used none up.
    expect(recs[6]!.exchanges[0]!.request.headers).toContainEqual(["Producer-Seq", "0"]);
    expect(recs[6]!.exchanges[0]!.request.headers).toContainEqual(["Stream-Seq", "00000000000000000004"]);
    expect(recs[10]!.note).toBe("Facts 1, 2, 3, 4, 5, 6: none lost, none twice.");
  });
});
