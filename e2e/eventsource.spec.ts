// A plain browser EventSource, the one client that cannot be told where to resume: it reconnects
// to the same URL by itself whenever a response ends (every --sse-max-duration), sending back the
// id of the last event it saw. Here the stream lives on a second binary, so the EventSource is
// cross-origin as well, and its responses end every 700 ms while messages keep coming.
import { test, expect } from "./fixtures.ts";
import { pageServer } from "./page-server.ts";
import { startUrsa } from "./server-process.ts";

test("a browser EventSource follows a stream across the server's reconnects: every message once, in order", async ({ page, request }) => {
  test.setTimeout(30_000);
  const other = await startUrsa({ args: ["--sse-max-duration", "700ms"] });
  // A page of its own origin: the console's CSP would not let it connect to another server.
  const site = await pageServer();
  try {
    const stream = `${other.url}/eventsource-e2e/s`;
    const json = { "Content-Type": "application/json" };
    expect((await request.put(stream, { headers: json })).status()).toBe(201);
    expect((await request.post(stream, { headers: json, data: '[{"n":0},{"n":1}]' })).status()).toBe(204);

    await page.goto(`http://localhost:${site.port}/`);
    await page.evaluate((url) => {
      const w = window as unknown as { got: number[]; opens: number };
      w.got = [];
      w.opens = 0;
      const source = new EventSource(url);
      source.onopen = () => w.opens++;
      source.addEventListener("data", (e) => w.got.push(...(JSON.parse((e as MessageEvent<string>).data) as { n: number }[]).map((m) => m.n)));
    }, `${stream}?offset=-1&live=sse`);

    const total = 12;
    for (let n = 2; n < total; n++) {
      expect((await request.post(stream, { headers: json, data: JSON.stringify({ n }) })).status()).toBe(204);
      await page.waitForTimeout(500);
    }
    // Chromium waits about 3 s before reconnecting; by now it has done so at least once.
    await expect.poll(() => page.evaluate(() => (window as unknown as { opens: number }).opens), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => page.evaluate(() => (window as unknown as { got: number[] }).got.length), { timeout: 15_000 }).toBeGreaterThanOrEqual(total);
    const got = await page.evaluate(() => (window as unknown as { got: number[] }).got);
    expect(got).toEqual(Array.from({ length: total }, (_, n) => n));
  } finally {
    await site.close();
    await other.stop();
    other.cleanup();
  }
});
