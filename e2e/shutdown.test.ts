// SIGTERM is a clean stop: live readers get a final answer rather than a dropped connection
// (an SSE control they can resume from, a long-poll 204), the process exits 0, and a write
// acknowledged just before the signal is there after a restart.
import { expect, test } from "vitest";
import { bodyText } from "./body-text.ts";
import { restartPair } from "./restart-pair.ts";
import { startUrsa } from "./server-process.ts";

const pair = restartPair();

test("SIGTERM ends live reads with a final event, exits 0, and keeps acknowledged writes", { timeout: 20_000 }, async () => {
  const first = (pair.first = await startUrsa());
  const url = `${first.url}/e2e-test/shutdown-${Date.now().toString(36)}`;
  expect((await fetch(url, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "before" })).status).toBe(201);

  const sse = bodyText(await fetch(`${url}?offset=-1&live=sse`));
  // A long-poll parked at the tail with a wait far longer than the test.
  const poll = fetch(`${url}?offset=now&live=long-poll&timeout_ms=60000`);
  await new Promise((r) => setTimeout(r, 200));
  const appended = await fetch(url, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "-last" });
  expect(appended.status).toBe(204);
  const tail = appended.headers.get("Stream-Next-Offset")!;

  const started = Date.now();
  first.child.kill("SIGTERM");
  const pollRes = await poll;
  await sse.ended;
  expect(await first.stop()).toBe(0);
  expect(Date.now() - started).toBeLessThan(5_000);

  // The long-poll had data by then or was answered at shutdown; either way a real response.
  expect([200, 204]).toContain(pollRes.status);
  // The SSE stream ended with a control event carrying the tail, so a client resumes from it.
  // Controls: after the catch-up, after the live append, and the one shutdown sends on its own.
  const controls = [...sse.text.matchAll(/event: control\ndata:(\{[^\n]*\})/g)].map((m) => JSON.parse(m[1]!));
  expect(controls.length).toBeGreaterThanOrEqual(3);
  expect(sse.text.endsWith(`event: control\ndata:${JSON.stringify(controls.at(-1))}\nid:${tail}\n\n`)).toBe(true);
  expect(controls.at(-1)?.streamNextOffset).toBe(tail);

  const second = (pair.second = await startUrsa({ dataDir: first.dataDir }));
  const read = await fetch(`${second.url}${new URL(url).pathname}?offset=-1`);
  expect(await read.text()).toBe("before-last");
});
