// Request logs from the binary: at debug one line per request, as text or JSON, with no token
// value in any of them (neither the access_token query parameter nor an Authorization header);
// at the default level none for requests that went well, and 5xx lines at most once per code.
import { afterEach, expect, test } from "vitest";
import { bodyText } from "./body-text.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess | undefined;
afterEach(async () => {
  await ursa?.stop();
  ursa?.cleanup();
  ursa = undefined;
});

/** Waits for the log to hold `count` lines that match. */
async function logLines(match: RegExp, count: number): Promise<string[]> {
  for (let i = 0; i < 100; i++) {
    const lines = ursa!.log().split("\n").filter((l) => match.test(l));
    if (lines.length >= count) return lines;
    await new Promise((r) => setTimeout(r, 20));
  }
  return ursa!.log().split("\n").filter((l) => match.test(l));
}

test("at debug every request is a line, and no token value reaches the log", { timeout: 20_000 }, async () => {
  ursa = await startUrsa({ args: ["--log-level", "debug"] });
  const stream = `${ursa.url}/e2e-log/s`;
  expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "text/plain", Authorization: "Bearer secret456" }, body: "x" })).status).toBe(201);
  expect((await fetch(`${stream}?offset=-1&access_token=secret123`)).status).toBe(200);
  expect((await fetch(`${stream}?access_token=secret123&offset=now&live=long-poll&timeout_ms=1`)).status).toBe(204);
  expect((await fetch(`${ursa.url}/e2e-log/missing?%61ccess_token=secret124`)).status).toBe(404);

  const lines = await logLines(/ debug request /, 4);
  expect(lines).toHaveLength(4);
  expect(lines[0]).toMatch(/ debug request method=PUT path=\/e2e-log\/s status=201 ms=[0-9.]+ client=127\.0\.0\.1$/);
  expect(lines[1]).toMatch(/ debug request method=GET path=\/e2e-log\/s query="offset=-1&access_token=REDACTED" status=200 ms=[0-9.]+ client=127\.0\.0\.1$/);
  expect(lines[2]).toContain('query="access_token=REDACTED&offset=now&live=long-poll&timeout_ms=1" status=204');
  expect(lines[3]).toMatch(/ method=GET path=\/e2e-log\/missing query="%61ccess_token=REDACTED" status=404 ms=[0-9.]+ code=STREAM_NOT_FOUND client=127\.0\.0\.1$/);
  for (const secret of ["secret123", "secret124", "secret456", "Bearer"]) expect(ursa.log()).not.toContain(secret);
});

test("--log-format json: every line on stderr is one JSON object", { timeout: 20_000 }, async () => {
  ursa = await startUrsa({ args: ["--log-level", "debug", "--log-format", "json"] });
  expect((await fetch(`${ursa.url}/e2e-log/nope?access_token=secret123`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "x" })).status).toBe(404);
  const [line] = await logLines(/"msg":"request"/, 1);
  expect(JSON.parse(line!)).toEqual({
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    level: "debug",
    msg: "request",
    method: "POST",
    path: "/e2e-log/nope",
    query: "access_token=REDACTED",
    status: 404,
    ms: expect.any(Number),
    code: "STREAM_NOT_FOUND",
    client: "127.0.0.1",
  });
  const started = ursa.log().split("\n").find((l) => l.includes('"msg":"started"'))!;
  expect(JSON.parse(started)).toMatchObject({ level: "info", version: expect.any(String), sync: "full", auth: "none", data: expect.stringContaining("ursa.sqlite") });
  await ursa.stop();
  // Every line but the listening line on stdout: the log on stderr is JSON throughout.
  for (const l of ursa.log().split("\n").filter((l) => l && !l.startsWith("ursa listening "))) expect(() => JSON.parse(l)).not.toThrow();
});

test("at the default level requests that went well log nothing; a 5xx logs at warn, once per code per ten seconds", { timeout: 20_000 }, async () => {
  ursa = await startUrsa({ args: ["--max-live-readers", "1"] });
  const stream = `${ursa.url}/e2e-log/s`;
  expect((await fetch(stream, { method: "PUT", headers: { "Content-Type": "text/plain" } })).status).toBe(201);
  expect((await fetch(stream, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "y" })).status).toBe(204);
  expect((await fetch(`${ursa.url}/e2e-log/missing`)).status).toBe(404);
  const abort = new AbortController();
  const held = await fetch(`${stream}?offset=-1&live=sse`, { signal: abort.signal });
  expect(held.status).toBe(200);
  const body = bodyText(held);
  for (let i = 0; i < 3; i++) expect((await fetch(`${stream}?offset=-1&live=sse&access_token=secret123`)).status).toBe(503);
  abort.abort();
  await body.ended.catch(() => undefined);

  const warned = await logLines(/ warn  request /, 1);
  expect(warned).toHaveLength(1);
  expect(warned[0]).toMatch(/ warn  request method=GET path=\/e2e-log\/s query="offset=-1&live=sse&access_token=REDACTED" status=503 ms=[0-9.]+ code=LIVE_READ_BACKPRESSURE client=127\.0\.0\.1$/);
  expect(ursa.log()).not.toMatch(/debug|status=20|status=404/);
  expect(ursa.log()).not.toContain("secret123");
});
