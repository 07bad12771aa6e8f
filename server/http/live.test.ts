// Live reads in-process: long-poll wakes on commit, times out with 204, and ends promptly when its
// stream is deleted or recreated; SSE frames data and control events and signals deletion.

import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { harness, type Harness } from "../testing/app-harness";

let h: Harness;
beforeEach(async () => {
  h = harness({ longPollTimeoutMs: 3000 });
  await h.request("PUT", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "ab" });
});
afterEach(() => h.close());

const tail = "0000000000000000_0000000000000002";

async function readSse(res: Response, until: (text: string) => boolean, ms = 2000): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + ms;
  while (!until(text) && Date.now() < deadline) {
    const { done, value } = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => ({ done: true, value: undefined }))]);
    if (done) break;
    text += decoder.decode(value);
  }
  await reader.cancel();
  return text;
}

describe("long-poll (spec §4.3)", () => {
  test("a parked reader wakes with the appended data", async () => {
    const started = Date.now();
    const poll = h.request("GET", `/live-b/s?offset=${tail}&live=long-poll`);
    await Bun.sleep(20);
    await h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "cd" });
    const res = await poll;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("cd");
    expect(res.headers.get("Stream-Cursor")).toMatch(/^[0-9]+$/);
    expect(Date.now() - started).toBeLessThan(1000);
  });
  test("a timeout answers 204 with the tail, up-to-date and a cursor", async () => {
    const res = await h.request("GET", `/live-b/s?offset=now&live=long-poll&timeout_ms=30`);
    expect(res.status).toBe(204);
    expect(res.headers.get("Stream-Next-Offset")).toBe(tail);
    expect(res.headers.get("Stream-Up-To-Date")).toBe("true");
    expect(res.headers.get("Stream-Cursor")).toMatch(/^[0-9]+$/);
  });
  test("[CW] a deleted stream ends the wait promptly with 404", async () => {
    const started = Date.now();
    const poll = h.request("GET", `/live-b/s?offset=${tail}&live=long-poll`);
    await Bun.sleep(20);
    await h.request("DELETE", "/live-b/s");
    expect((await poll).status).toBe(404);
    expect(Date.now() - started).toBeLessThan(1000);
  });
  test("[CW] a recreated stream ends a wait that carried the token with 412 and the new token, never its data", async () => {
    const head = await h.request("HEAD", "/live-b/s");
    const token = head.headers.get("Stream-Incarnation")!;
    const poll = h.request("GET", `/live-b/s?offset=${tail}&live=long-poll`, { headers: { "Stream-Incarnation": token } });
    await Bun.sleep(20);
    await h.request("DELETE", "/live-b/s");
    const created = await h.request("PUT", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "new data" });
    const res = await poll;
    expect([404, 412]).toContain(res.status);
    expect(await res.text()).not.toContain("new data");
    expect(created.headers.get("Stream-Incarnation")).not.toBe(token);
  });
});

describe("SSE (spec §4.4)", () => {
  test("catch-up sends a data event followed by exactly one control event", async () => {
    const res = await h.request("GET", "/live-b/s?offset=-1&live=sse");
    expect(res.headers.get("Content-Type")).toBe("text/event-stream");
    expect(res.headers.get("Cache-Control")).toBe("no-cache");
    const text = await readSse(res, (t) => t.includes("upToDate"));
    // Each event's id is the offset after it: an EventSource sends it back as Last-Event-ID.
    expect(text).toMatch(
      /^event: data\ndata:ab\nid:0000000000000000_0000000000000002\n\nevent: control\ndata:\{"streamNextOffset":"0000000000000000_0000000000000002","streamCursor":"[0-9]+","upToDate":true\}\nid:0000000000000000_0000000000000002\n\n$/,
    );
  });
  test("a reconnect carrying Last-Event-ID resumes there, not at the URL's offset (EventSource)", async () => {
    await h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "cd" });
    const res = await h.request("GET", "/live-b/s?offset=-1&live=sse", { headers: { "Last-Event-ID": tail } });
    const text = await readSse(res, (t) => t.includes("upToDate"));
    expect(text).toStartWith("event: data\ndata:cd\nid:0000000000000000_0000000000000004\n\n");
    // Only SSE reads take it: a catch-up read is not an EventSource reconnect.
    expect(await (await h.request("GET", "/live-b/s?offset=-1", { headers: { "Last-Event-ID": tail } })).text()).toBe("abcd");
  });
  test("a Last-Event-ID that is not an offset is refused with INVALID_OFFSET", async () => {
    for (const id of ["-1", "now", "abc", "0000000000000001_0000000000000000"]) {
      const res = await h.request("GET", "/live-b/s?offset=-1&live=sse", { headers: { "Last-Event-ID": id } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("INVALID_OFFSET");
    }
  });
  test("payload lines split on CR, LF and CRLF cannot inject events", async () => {
    await h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "x\r\n\r\nevent: control\rdata:{}\n y" });
    const text = await readSse(await h.request("GET", `/live-b/s?offset=${tail}&live=sse`), (t) => t.includes("upToDate"));
    expect(text.startsWith("event: data\ndata:x\ndata:\ndata:event: control\ndata:data:{}\ndata:  y\nid:")).toBe(true);
  });
  test("binary streams are base64 and say so", async () => {
    await h.request("PUT", "/live-b/bin", { headers: { "Content-Type": "application/octet-stream" }, body: new Uint8Array([0, 255, 1]) });
    const res = await h.request("GET", "/live-b/bin?offset=-1&live=sse");
    expect(res.headers.get("Stream-SSE-Data-Encoding")).toBe("base64");
    expect(await readSse(res, (t) => t.includes("upToDate"))).toContain("data:AP8B\n");
  });
  test("a closed stream ends with a streamClosed control and no cursor", async () => {
    await h.request("POST", "/live-b/s", { headers: { "Stream-Closed": "true" } });
    const text = await readSse(await h.request("GET", "/live-b/s?offset=-1&live=sse"), () => false);
    expect(text).toContain('data:{"streamNextOffset":"0000000000000000_0000000000000002","upToDate":true,"streamClosed":true}');
  });
  test("a subscriber at the tail gets each append once, in order, straight from the commit", async () => {
    const res = await h.request("GET", `/live-b/s?offset=${tail}&live=sse`);
    setTimeout(() => void h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "cd" }), 20);
    setTimeout(() => void h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "ef" }), 60);
    const text = await readSse(res, (t) => t.includes("data:ef"));
    const data = [...text.matchAll(/event: data\ndata:(.*)\n/g)].map((m) => m[1]);
    expect(data).toEqual(["cd", "ef"]);
    expect(text).toContain('"streamNextOffset":"0000000000000000_0000000000000006"');
  });
  test("subscribers woken by one append share its framing, yet each gets the cursor its own request calls for", async () => {
    const interval = Number((await h.request("GET", `/live-b/s?offset=now&live=long-poll&timeout_ms=1`)).headers.get("Stream-Cursor"));
    // A client that echoes a cursor from the future must get one strictly above it (spec §3.5).
    const ahead = interval + 1_000;
    const plain = [await h.request("GET", `/live-b/s?offset=${tail}&live=sse`), await h.request("GET", `/live-b/s?offset=${tail}&live=sse`)];
    const echoing = await h.request("GET", `/live-b/s?offset=${tail}&live=sse&cursor=${ahead}`);
    setTimeout(() => void h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: "cd" }), 20);
    const texts = await Promise.all([...plain, echoing].map((res) => readSse(res, (t) => t.includes("data:cd\n"))));
    const cursorAfterData = (text: string) => Number(/data:cd\n[^]*?"streamCursor":"([0-9]+)"/.exec(text)![1]);
    for (const text of texts) expect(text).toContain('"streamNextOffset":"0000000000000000_0000000000000004"');
    expect(cursorAfterData(texts[0]!)).toBe(interval);
    expect(cursorAfterData(texts[1]!)).toBe(interval);
    expect(cursorAfterData(texts[2]!)).toBeGreaterThan(ahead);
  });
  test("a catch-up of 24 MiB reaches up-to-date on one connection, every byte in order", async () => {
    const mib = "q".repeat(1024 * 1024);
    for (let i = 0; i < 24; i++) expect((await h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: mib })).status).toBe(204);
    const end = "0000000000000000_" + String(2 + 24 * mib.length).padStart(16, "0");
    const text = await readSse(await h.request("GET", "/live-b/s?offset=-1&live=sse"), (t) => t.includes(`"streamNextOffset":"${end}","streamCursor"`) || t.includes(`"streamNextOffset":"${end}","upToDate"`), 20_000);
    const data = [...text.matchAll(/event: data\ndata:([^\n]*)\n/g)].map((m) => m[1]).join("");
    expect(data).toBe("ab" + mib.repeat(24));
    expect(text).toContain(`"streamNextOffset":"${end}"`);
    expect(text).toMatch(/"upToDate":true/);
    // The test's own bound is readSse's 20 s wait, not bun's default of 5 s (too short at load).
  }, 30_000);
  test("a subscriber that stops reading is waited for, not buffered for: once it reads on, it gets every byte", async () => {
    const res = await h.request("GET", `/live-b/s?offset=${tail}&live=sse`);
    const mib = "q".repeat(1024 * 1024);
    for (let i = 0; i < 10; i++) await h.request("POST", "/live-b/s", { headers: { "Content-Type": "text/plain" }, body: mib });
    const end = "0000000000000000_" + String(2 + 10 * mib.length).padStart(16, "0");
    const text = await readSse(res, (t) => new RegExp(`"streamNextOffset":"${end}"[^\n]*"upToDate":true`).test(t), 10_000);
    const data = [...text.matchAll(/event: data\ndata:([^\n]*)\n/g)].map((m) => m[1]).join("");
    expect(data).toBe(mib.repeat(10));
  }, 20_000);
  test("[CW] deletion while subscribed sends event: error and ends", async () => {
    const res = await h.request("GET", `/live-b/s?offset=${tail}&live=sse`);
    setTimeout(() => void h.request("DELETE", "/live-b/s"), 30);
    const text = await readSse(res, (t) => t.includes("event: error"));
    expect(text).toContain("event: error\n");
  });
});
