import { describe, expect, test } from "bun:test";
import { createIncarnationLab } from "./incarnationLab";
import { createOutboxLab } from "./outboxLab";
import { createDemo, DEMO_STREAMS, demoSteps } from "./demo";
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
    // The plan named up front is what happened.
    expect(recs.map((r) => r.title)).toEqual(lab.steps.map((s) => s.title));
    expect(recs[6]!.title).toBe("New owner skips to fact 4, the first after Stream-Last-Seq (epoch 1, Producer-Seq 0, Stream-Seq 4)");
    expect(lab.steps.every((s) => s.explain.length > 0)).toBe(true);
    // The skip reused Producer-Seq 0: the 409 used none up.
    expect(recs[6]!.exchanges[0]!.request.headers).toContainEqual(["Producer-Seq", "0"]);
    expect(recs[6]!.exchanges[0]!.request.headers).toContainEqual(["Stream-Seq", "00000000000000000004"]);
    expect(recs[10]!.note).toBe("Facts 1, 2, 3, 4, 5, 6: none lost, none twice.");
  });
});

describe("demo bucket", () => {
  test("every step answers as planned, the refusals included", async () => {
    const { transport, streams } = fakeServer();
    const demo = createDemo(transport, "demo");
    await demo.runAll(noPause);
    const recs = demo.records.value;
    expect(recs.every((r) => r.ok)).toBe(true);
    expect(recs.map((r) => r.exchanges[0]!.response!.status)).toEqual([201, 204, 409, 200, 204, 204, 409, 201, 200, 200, 200, 409, 200, 403, 201, 204, 204, 201, 412, 204, 201, 204]);
    expect([...streams.keys()].sort()).toEqual(DEMO_STREAMS.map((s) => `/demo/${s}`).sort());
    expect(streams.get("/demo/prefix-count-log")!.lastSeq).toBe("00000000000000000003");
    expect(streams.get("/demo/prefix-count-log")!.msgs.length).toBe(4);
  });
  test("every step is named before it runs", () => {
    expect(demoSteps().every((s) => s.title.length > 0 && s.explain.length > 0)).toBe(true);
  });
});
