import { describe, expect, test } from "bun:test";
import { createIncarnationLab, incarnationLesson } from "./incarnationLab";
import { createOutboxLab, outboxLesson } from "./outboxLab";
import { classify } from "../api/outcome";
import { createDemo, DEMO_STREAMS, demoSteps } from "./demo";
import { fakeServer } from "./testing/fakeServer";

const noPause = async () => {};

describe("incarnation lab", () => {
  test("old token gets 412 with the new token on append, read and HEAD; missing stays 404", async () => {
    const { transport } = fakeServer();
    const lab = createIncarnationLab(transport, "lab1", { name: () => "inc-1" });
    await lab.runAll(noPause);
    const recs = lab.records.value;
    expect(recs.map((r) => r.exchanges[0]!.response!.status)).toEqual([201, 204, 204, 201, 412, 412, 412, 404, 412, 404, 200, 204]);
    expect(recs.every((r) => r.ok)).toBe(true);
    expect(lab.ctx.oldToken).not.toBe(lab.ctx.newToken);
    expect(recs[4]!.note).toContain(`new token ${lab.ctx.newToken}`);
    // Starting over reads and appends with the new token.
    expect(recs[10]!.exchanges[0]!.request.headers).toContainEqual(["Stream-Incarnation", lab.ctx.newToken!]);
    expect(recs[11]!.exchanges[0]!.request.headers).toContainEqual(["Stream-Incarnation", lab.ctx.newToken!]);
    const v = incarnationLesson(lab.view.value);
    expect(v.ok).toBe(true);
    expect(v.happened).toContain("Its append, read and HEAD with the old token each answered 412");
    expect([v.prevented, v.remember].every((t) => t.length > 0)).toBe(true);
  });

  test("the verdict fails when a request with the old token was not refused", async () => {
    const { transport } = fakeServer();
    const lab = createIncarnationLab(transport, "lab1", { name: () => "inc-2" });
    await lab.runAll(noPause);
    expect(incarnationLesson({ ...lab.view.value, refused: ["append", "read"] }).ok).toBe(false);
    expect(incarnationLesson({ ...lab.view.value, restart: { events: [{ step: "replayed" }], appended: 204 } }).ok).toBe(false);
  });
});

describe("outbox lab", () => {
  test("the new owner skips the already-published fact and fences the old owner", async () => {
    const { transport } = fakeServer();
    const lab = createOutboxLab(transport, "lab1", { name: () => "ob-1" });
    await lab.runAll(noPause);
    const recs = lab.records.value;
    expect(recs.map((r) => r.exchanges[0]?.response?.status ?? "-")).toEqual([201, 200, 200, 204, 200, "-", 409, 200, 403, 200, 200, 200]);
    expect(recs.every((r) => r.ok)).toBe(true);
    // The answer to fact 2 is lost; the retry with the same producer headers is a duplicate.
    expect(recs[2]!.lost).toBe(true);
    expect(recs[3]!.exchanges[0]!.request.headers).toEqual(recs[2]!.exchanges[0]!.request.headers);
    expect(recs[3]!.note).toContain("204, a duplicate");
    expect(recs[3]!.note).toContain(`Stream-Next-Offset ${recs[2]!.exchanges[0]!.response!.headers.find(([k]) => k === "stream-next-offset")![1]}`);
    expect(recs[6]!.note).toContain("fact 2 is already published. Go on to fact 4");
    // The plan named up front is what happened.
    expect(recs.map((r) => r.title)).toEqual(lab.steps.map((s) => s.title));
    expect(recs[7]!.title).toBe("New owner skips to fact 4, the first after Stream-Last-Seq (epoch 1, Producer-Seq 0, Stream-Seq 4)");
    expect(lab.steps.every((s) => s.explain.length > 0)).toBe(true);
    // The skip reused Producer-Seq 0: the 409 used none up.
    expect(recs[7]!.exchanges[0]!.request.headers).toContainEqual(["Producer-Seq", "0"]);
    expect(recs[7]!.exchanges[0]!.request.headers).toContainEqual(["Stream-Seq", "00000000000000000004"]);
    expect(recs[11]!.note).toBe("Facts 1, 2, 3, 4, 5, 6: none lost, none twice.");
    const v = outboxLesson(lab.view.value);
    expect(v.ok).toBe(true);
    expect(v.happened).toContain("The answer to fact 2 was lost and the old owner sent it again: 204, a duplicate.");
    expect(v.happened).toContain("The stream holds facts 1, 2, 3, 4, 5, 6: 6 facts, each once");
  });

  test("the verdict fails when a fact is on the stream twice", async () => {
    const { transport } = fakeServer();
    const lab = createOutboxLab(transport, "lab1", { name: () => "ob-2" });
    await lab.runAll(noPause);
    const ctx = lab.view.value;
    const v = outboxLesson({ ...ctx, seen: { ...ctx.seen, facts: [1, 2, 2, 3, 4, 5, 6] } });
    expect(v.ok).toBe(false);
    expect(v.happened).toBe("The stream holds facts 1, 2, 2, 3, 4, 5, 6; expected 1, 2, 3, 4, 5, 6, each once.");
  });

  test("a reset while a step waits for its answer drops that answer and deletes the run's streams", async () => {
    const { transport } = fakeServer();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let cleaned = 0;
    const slow: typeof transport = async (req, opts) => {
      await gate;
      return transport(req, opts);
    };
    const lab = createOutboxLab(slow, "lab1", { name: () => "ob-3", cleanup: async () => void cleaned++ });
    const step = lab.step();
    lab.reset();
    release();
    await step;
    expect(cleaned).toBe(1);
    expect(lab.records.value).toEqual([]);
    expect(lab.cursor.value).toBe(0);
  });
});

describe("demo bucket", () => {
  test("every step answers as planned, the refusals included", async () => {
    const { transport, streams } = fakeServer();
    const demo = createDemo(transport, "demo");
    await demo.runAll(noPause);
    const recs = demo.records.value;
    expect(recs.every((r) => r.ok)).toBe(true);
    expect(recs.map((r) => r.exchanges[0]!.response!.status)).toEqual([201, 204, 409, 200, 204, 204, 409, 201, 200, 200, 200, 204, 409, 200, 403, 201, 204, 204, 201, 412, 204, 201, 204]);
    // The retried fact is a duplicate (the timeline's chip counts it) and on the stream once.
    expect(recs.filter((r) => classify(r.exchanges[0]!) === "duplicate").length).toBe(1);
    expect(streams.get("/demo/outbox")!.msgs.map((m) => (JSON.parse(m) as { fact: number }).fact)).toEqual([1, 2, 3, 4]);
    expect([...streams.keys()].sort()).toEqual(DEMO_STREAMS.map((s) => `/demo/${s}`).sort());
    expect(streams.get("/demo/prefix-count-log")!.lastSeq).toBe("00000000000000000003");
    expect(streams.get("/demo/prefix-count-log")!.msgs.length).toBe(4);
  });
  test("every step is named before it runs", () => {
    expect(demoSteps().every((s) => s.title.length > 0 && s.explain.length > 0)).toBe(true);
  });
});
