import { describe, expect, test } from "bun:test";
import { buildRequest, ComposerModel, DEFAULT_FORM } from "./composer";
import { fakeServer } from "./testing/fakeServer";
import { padSeq } from "../api/streamSeq";

describe("buildRequest", () => {
  test("turns toggles into headers in a stable order", () => {
    const req = buildRequest({
      ...DEFAULT_FORM,
      target: "/demo/s",
      seqOn: true,
      seq: padSeq(3),
      producerOn: true,
      incarnationOn: true,
      incarnation: "42",
      closedOn: true,
      extraHeaders: "X-Trace: abc\nnonsense",
    });
    expect(req).toEqual({
      method: "POST",
      path: "/demo/s",
      headers: [
        ["Content-Type", "application/json"],
        ["Stream-Seq", padSeq(3)],
        ["Producer-Id", "console"],
        ["Producer-Epoch", "0"],
        ["Producer-Seq", "0"],
        ["Stream-Incarnation", "42"],
        ["Stream-Closed", "true"],
        ["X-Trace", "abc"],
      ],
      body: DEFAULT_FORM.body,
    });
  });
  test("GET carries the query and never a body or Content-Type", () => {
    const req = buildRequest({ ...DEFAULT_FORM, method: "GET", target: "/demo/s", query: "?offset=now" });
    expect(req).toEqual({ method: "GET", path: "/demo/s?offset=now", headers: [] });
  });
  test("PUT with TTL or Expires-At", () => {
    expect(buildRequest({ ...DEFAULT_FORM, method: "PUT", target: "/d/s", body: "", ttlOn: true }).headers).toEqual([
      ["Content-Type", "application/json"],
      ["Stream-TTL", "3600"],
    ]);
    expect(buildRequest({ ...DEFAULT_FORM, method: "PUT", target: "/d/s", ttlOn: true, ttlMode: "expires", expiresAt: "2030-01-01T00:00:00Z" }).headers).toContainEqual([
      "Stream-Expires-At",
      "2030-01-01T00:00:00Z",
    ]);
  });
});

describe("buildRequest for sub-resources", () => {
  test("append-batch: the frames are the body; write guards are shown (and sent) to teach the 400", () => {
    const req = buildRequest({ ...DEFAULT_FORM, endpoint: "append-batch", target: "/demo/s", frames: ['{"n":1}', "[2,3]"], preferMinimal: true, seqOn: true, incarnationOn: true, incarnation: "7" });
    expect(req).toEqual({
      method: "POST",
      path: "/demo/s/append-batch",
      headers: [
        ["Content-Type", "application/json"],
        ["Stream-Seq", DEFAULT_FORM.seq],
        ["Stream-Incarnation", "7"],
        ["Prefer", "return=minimal"],
      ],
      body: undefined,
      frames: ['{"n":1}', "[2,3]"],
    });
  });
  test("a guard that does not apply is never sent, whatever its toggle says", () => {
    const on = { ...DEFAULT_FORM, target: "/demo/s", seqOn: true, producerOn: true, closedOn: true, ttlOn: true, snapshotMatchOn: true, snapshotMatch: "ab", incarnationOn: true, incarnation: "7" };
    expect(buildRequest({ ...on, endpoint: "retention", method: "PUT", offset: "0000000000000000_0000000000000008" })).toEqual({
      method: "PUT",
      path: "/demo/s/retention/0000000000000000_0000000000000008",
      headers: [["Stream-Incarnation", "7"]],
      body: undefined,
    });
    const snap = buildRequest({ ...on, endpoint: "snapshot-at", method: "PUT", offset: "0000000000000000_0000000000000008", body: '{"count":1}' });
    expect(snap.headers).toEqual([
      ["Content-Type", "application/json"],
      ["Stream-Incarnation", "7"],
      ["Stream-Snapshot-Match", "ab"],
    ]);
    expect(buildRequest({ ...on, endpoint: "bootstrap", method: "GET", query: "offset=-1" })).toEqual({ method: "GET", path: "/demo/s/bootstrap", headers: [["Stream-Incarnation", "7"]], body: undefined });
  });
  test("switching the endpoint keeps the method only where it is answered", () => {
    const c = new ComposerModel(fakeServer().transport);
    c.update({ method: "DELETE" });
    c.setEndpoint("bootstrap");
    expect(c.form.value.method).toBe("GET");
    c.setEndpoint("snapshot-at");
    expect(c.form.value.method).toBe("GET");
    c.setEndpoint("attrs");
    expect([c.form.value.method, c.form.value.contentType]).toEqual(["GET", "application/json"]);
  });
});

describe("ComposerModel", () => {
  async function setup() {
    const server = fakeServer();
    const c = new ComposerModel(server.transport);
    await server.transport({ method: "PUT", path: "/demo/s", headers: [["Content-Type", "application/json"]] });
    c.update({ target: "/demo/s" });
    return { c, server };
  }

  test("takes the target's incarnation token from the first answer that carries it", async () => {
    const { c } = await setup();
    await c.send();
    expect(c.form.value.incarnation).toBe("101");
  });

  test("a 409 with Stream-Last-Seq is retried with n + k after reading on", async () => {
    const { c, server } = await setup();
    // Another writer committed 2 events with Stream-Seq 0.
    await server.transport({ method: "POST", path: "/demo/s", headers: [["Content-Type", "application/json"], ["Stream-Seq", padSeq(0)]], body: "[1,2]" });
    c.update({ seqOn: true, seq: padSeq(0), body: "[3]" });
    const lost = await c.send();
    expect(lost.response!.status).toBe(409);
    const retried = await c.retryFrom409();
    const st = c.retry.value;
    expect(st.kind === "ready" && st.plan).toMatchObject({ method: "prefix-count", n: 0, k: 2, total: 2, seq: padSeq(2), lastSeq: padSeq(0) });
    expect(retried!.response!.status).toBe(204);
    expect(retried!.request.headers).toContainEqual(["Stream-Seq", padSeq(2)]);
    expect(c.form.value.seq).toBe(padSeq(2));
  });

  test("no retry is offered on a 409 without Stream-Last-Seq", async () => {
    const { c } = await setup();
    c.update({ contentType: "text/plain", body: "x" });
    const ex = await c.send();
    expect(ex.errorCode).toBe("CONTENT_TYPE_MISMATCH");
    expect(await c.retryFrom409()).toBeNull();
  });

  test("the seeding-PUT symptom is called out", async () => {
    const server = fakeServer();
    const c = new ComposerModel(server.transport);
    await server.transport({ method: "PUT", path: "/demo/seeded", headers: [["Content-Type", "application/json"], ["Stream-Seq", padSeq(5)]] });
    c.update({ target: "/demo/seeded", seqOn: true, seq: padSeq(0) });
    await c.send();
    await c.retryFrom409(true);
    const st = c.retry.value;
    expect(st.kind === "ready" && st.plan.warning).toContain("stored value is ahead of the log");
  });

  test("after a 412 the old token stays until start over, which adopts the new one and clears Producer-Seq, Stream-Seq and offsets", async () => {
    const { c, server } = await setup();
    c.update({ incarnationOn: true, producerOn: true, seqOn: true, seq: padSeq(0), endpoint: "stream" });
    await c.send();
    expect(c.form.value.incarnation).toBe("101");
    expect(c.form.value.producerSeq).toBe("1");
    // Someone deletes and recreates the stream behind the composer's back.
    await server.transport({ method: "DELETE", path: "/demo/s", headers: [] });
    await server.transport({ method: "PUT", path: "/demo/s", headers: [["Content-Type", "application/json"]] });
    const refused = await c.send();
    expect(refused.response!.status).toBe(412);
    expect(c.recreated.value).toEqual({ path: "/demo/s", kept: "101", current: "102", refused: true });
    expect(c.form.value.incarnation).toBe("101");
    // A second Send still carries the old token and is refused again: nothing lands in the new stream.
    const again = await c.send();
    expect(again.request.headers).toContainEqual(["Stream-Incarnation", "101"]);
    expect(again.response!.status).toBe(412);
    expect(server.streams.get("/demo/s")!.msgs).toEqual([]);
    c.update({ method: "GET", query: "offset=0000000000000000_0000000000000010&max_bytes=100", offset: "0000000000000000_0000000000000010" });
    c.startOver();
    expect(c.recreated.value).toBeNull();
    const f = c.form.value;
    expect([f.incarnation, f.producerSeq, f.seq, f.offset, f.query]).toEqual(["102", "0", padSeq(0), "", "offset=-1&max_bytes=100"]);
    c.update({ method: "POST" });
    expect((await c.send()).response!.status).toBe(200);
  });

  test("an answer to a request sent without the token that names another incarnation is not adopted either", async () => {
    const { c, server } = await setup();
    await c.send();
    await server.transport({ method: "DELETE", path: "/demo/s", headers: [] });
    await server.transport({ method: "PUT", path: "/demo/s", headers: [["Content-Type", "application/json"]] });
    c.update({ incarnationOn: false });
    expect((await c.send()).response!.status).toBe(204);
    expect(c.form.value.incarnation).toBe("101");
    expect(c.recreated.value).toMatchObject({ kept: "101", current: "102", refused: false });
  });

  test("a token kept for another target is replaced quietly: that is not a recreated stream", async () => {
    const { c, server } = await setup();
    await c.send();
    await server.transport({ method: "PUT", path: "/demo/t", headers: [["Content-Type", "application/json"]] });
    c.update({ target: "/demo/t" });
    await c.send();
    expect(c.form.value.incarnation).toBe("102");
    expect(c.recreated.value).toBeNull();
  });

  test("Producer-Seq advances after an accepted producer write", async () => {
    const { c } = await setup();
    c.update({ producerOn: true });
    await c.send();
    expect(c.form.value.producerSeq).toBe("1");
  });
});

describe("creating the target", () => {
  test("a PUT with the form's Content-Type and no Stream-Seq; then the first Send is accepted", async () => {
    const { transport } = fakeServer();
    const m = new ComposerModel(transport);
    m.update({ target: "/lab1/scratch", seqOn: true, seq: padSeq(5) });
    const created = await m.createTarget();
    expect(created.request).toEqual({ method: "PUT", path: "/lab1/scratch", headers: [["Content-Type", "application/json"]] });
    expect(created.response!.status).toBe(201);
    expect(m.last.value).toBe(created);
    m.update({ seqOn: false });
    expect((await m.send()).response!.status).toBe(204);
  });
});
