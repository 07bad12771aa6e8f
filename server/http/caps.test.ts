// The caps that keep descriptors from running out, in-process: requests in progress
// (--max-connections) and live readers, server-wide and per client address. A refused request
// gets 503 with Retry-After and Connection: close, and commits nothing.

import { expect, test } from "bun:test";
import { harness } from "../testing/app-harness";

const TEXT = { "Content-Type": "text/plain" };

async function refusedWith(res: Response, code: string) {
  expect(res.status).toBe(503);
  expect(res.headers.get("Retry-After")).toBe("1");
  expect(res.headers.get("Connection")).toBe("close");
  expect(((await res.json()) as { error: { code: string } }).error.code).toBe(code);
}

test("past --max-connections every request is answered at once with 503 CONNECTION_LIMIT, and nothing is written", async () => {
  let inFlight = 1;
  const h = harness({ maxConnections: 3, inFlight: () => inFlight });
  try {
    expect((await h.request("PUT", "/caps-b/s", { headers: TEXT, body: "a" })).status).toBe(201);
    const before = await h.fingerprint("caps-b/s");
    inFlight = 4;
    await refusedWith(await h.request("POST", "/caps-b/s", { headers: TEXT, body: "b" }), "CONNECTION_LIMIT");
    await refusedWith(await h.request("GET", "/caps-b/streams"), "CONNECTION_LIMIT");
    expect(await h.fingerprint("caps-b/s")).toBe(before);
    inFlight = 3;
    expect((await h.request("POST", "/caps-b/s", { headers: TEXT, body: "b" })).status).toBe(204);
  } finally {
    await h.close();
  }
});

test("live readers past the server-wide or the per-client cap get 503 LIVE_READ_BACKPRESSURE", async () => {
  const h = harness({ maxLiveReaders: 3, maxLiveReadersPerClient: 2 });
  const abort = new AbortController();
  try {
    expect((await h.request("PUT", "/caps-b/live", { headers: TEXT })).status).toBe(201);
    const sse = (client: string) => h.request("GET", "/caps-b/live?offset=-1&live=sse", { headers: { "X-Test-Client": client }, signal: abort.signal });
    const poll = (client: string) => h.request("GET", "/caps-b/live?offset=now&live=long-poll&timeout_ms=5000", { headers: { "X-Test-Client": client }, signal: abort.signal });
    expect((await sse("10.0.0.1")).status).toBe(200);
    const parked = poll("10.0.0.1");
    await new Promise((r) => setTimeout(r, 10));
    await refusedWith(await sse("10.0.0.1"), "LIVE_READ_BACKPRESSURE");
    await refusedWith(await poll("10.0.0.1"), "LIVE_READ_BACKPRESSURE");
    expect((await sse("10.0.0.2")).status).toBe(200);
    await refusedWith(await sse("10.0.0.3"), "LIVE_READ_BACKPRESSURE");
    // The parked long-poll, answered, gives its place back.
    expect((await h.request("POST", "/caps-b/live", { headers: TEXT, body: "x" })).status).toBe(204);
    expect((await parked).status).toBe(200);
    expect((await sse("10.0.0.3")).status).toBe(200);
    await refusedWith(await sse("10.0.0.4"), "LIVE_READ_BACKPRESSURE");
    // A long-poll that has data to answer with at once takes no place.
    expect((await h.request("GET", "/caps-b/live?offset=-1&live=long-poll", { headers: { "X-Test-Client": "10.0.0.4" } })).status).toBe(200);
  } finally {
    abort.abort();
    await h.close();
  }
});

test("past --max-requests-per-client a client's next request gets 429 CLIENT_REQUEST_LIMIT and writes nothing, while other clients go on", async () => {
  const h = harness({ maxRequestsPerClient: 2 });
  const abort = new AbortController();
  try {
    expect((await h.request("PUT", "/caps-b/share", { headers: TEXT, body: "a" })).status).toBe(201);
    const as = (client: string) => ({ ...TEXT, "X-Test-Client": client });
    // Two long-polls are two requests in progress for as long as they wait.
    const polls = [0, 1].map(() => h.request("GET", "/caps-b/share?offset=now&live=long-poll&timeout_ms=5000", { headers: as("10.0.0.1"), signal: abort.signal }));
    await new Promise((r) => setTimeout(r, 10));
    const before = await h.fingerprint("caps-b/share");
    const refused = await h.request("POST", "/caps-b/share", { headers: as("10.0.0.1"), body: "b" });
    expect([refused.status, refused.headers.get("Retry-After"), ((await refused.json()) as { error: { code: string } }).error.code]).toEqual([429, "1", "CLIENT_REQUEST_LIMIT"]);
    expect(await h.fingerprint("caps-b/share")).toBe(before);
    // Another client writes, which answers the long-polls and gives the first client its places back.
    expect((await h.request("POST", "/caps-b/share", { headers: as("10.0.0.2"), body: "c" })).status).toBe(204);
    expect((await Promise.all(polls)).map((r) => r.status)).toEqual([200, 200]);
    expect((await h.request("POST", "/caps-b/share", { headers: as("10.0.0.1"), body: "d" })).status).toBe(204);
  } finally {
    abort.abort();
    await h.close();
  }
});
