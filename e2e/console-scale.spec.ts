// Scale: a bucket of 10,000 streams and a stream of 100,000 messages stay fast because
// only one page is ever in the DOM (streams: 100 per page; messages: one max_bytes read;
// live tail: the row cap).
import { test, expect, screenshotPath } from "./fixtures.ts";
import { shot, uniq } from "./console/helpers.ts";

test("10,000 streams in a bucket and a 100,000-message tail", async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  const bucket = uniq("scale");
  // Node's fetch, not Playwright's request fixture: 10,000 calls through the driver are slow.
  let next = 0;
  const putWorker = async () => {
    while (next < 10_000) {
      const i = next++;
      const res = await fetch(`${baseURL}/${bucket}/s-${String(i).padStart(5, "0")}`, { method: "PUT", headers: { "Content-Type": "application/json" } });
      // A plain check: 10,000 expect() calls would each be recorded as a trace step.
      if (res.status !== 201) throw new Error(`PUT s-${i}: ${res.status}`);
    }
  };
  const t0 = Date.now();
  await Promise.all(Array.from({ length: 24 }, putWorker));
  console.log(`setup: 10,000 PUTs in ${Date.now() - t0} ms`);
  const big = `/${bucket}/s-00000`;
  for (let b = 0; b < 200; b++) {
    const body = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ n: b * 500 + i, kind: "tick" })));
    const res = await fetch(`${baseURL}${big}`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    if (res.status !== 204) throw new Error(`POST batch ${b}: ${res.status}`);
  }

  console.log(`setup: + 100,000 messages at ${Date.now() - t0} ms`);
  let t = Date.now();
  await page.goto(`/ui/b/${bucket}`);
  await expect(page.getByTestId("stream-total")).toHaveText("10,000 streams");
  await expect(page.getByRole("region", { name: "Streams" }).locator("tbody tr")).toHaveCount(100);
  const listMs = Date.now() - t;

  t = Date.now();
  await page.getByLabel("Stream prefix").fill("s-0999");
  await expect(page.getByTestId("stream-total")).toHaveText("10 streams starting with “s-0999”");
  const filterMs = Date.now() - t;

  t = Date.now();
  await page.goto(`/ui/s/${bucket}/s-00000`);
  await expect(page.locator('[data-field="message_count"]')).toHaveText("100,000");
  const rows = page.getByRole("list", { name: "Messages" }).locator("li");
  await expect(rows.first()).toContainText('"n": 0');
  const viewerMs = Date.now() - t;
  expect(await rows.count()).toBeLessThan(1000);

  t = Date.now();
  await page.getByRole("tab", { name: /Live tail/ }).click();
  await page.getByRole("button", { name: "From oldest" }).click();
  await page.getByRole("button", { name: "Start live tail" }).click();
  await expect(page.getByTestId("tail-counts")).toHaveText("100000 received · 500 kept · 99500 dropped", { timeout: 30_000 });
  const tailMs = Date.now() - t;
  await expect(page.getByRole("list", { name: "Live messages, newest first" }).locator("li").first()).toContainText('"n": 99999');

  // Generous bounds for a loaded 2-core CI box; typical values are a few hundred ms each.
  console.log(`scale: list ${listMs} ms, filter ${filterMs} ms, viewer ${viewerMs} ms, tail of 100k ${tailMs} ms`);
  expect(listMs).toBeLessThan(5000);
  expect(filterMs).toBeLessThan(5000);
  expect(viewerMs).toBeLessThan(5000);
  expect(tailMs).toBeLessThan(15000);
  t = Date.now();
  await shot(page, screenshotPath("console-scale"));
  console.log(`screenshot ${Date.now() - t} ms`);
});
