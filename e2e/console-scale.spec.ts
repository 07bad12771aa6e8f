// Scale: a bucket of 10,000 streams sorted and filtered page by page (each page checked against
// the introspection API's own answer), and a stream of 100,000 messages in the virtualized
// viewer and the live tail. Only a page of streams and the rows in view are ever in the DOM.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { shot, uniq } from "./console/helpers.ts";

const pad = (n: number) => String(n).padStart(20, "0");
const name = (i: number) => `s-${String(i).padStart(5, "0")}`;

/** Run `work(i)` for i in [0, n) with `width` requests in flight. */
async function fanOut(n: number, width: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await work(next++);
  }));
}

async function names(page: Page): Promise<string[]> {
  return page.getByRole("table", { name: "Streams" }).locator("tbody tr").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-stream")!));
}

test("10,000 streams sorted and filtered; 100,000 messages in the viewer and the live tail", async ({ page, baseURL }) => {
  test.setTimeout(120_000);
  const bucket = uniq("scale");
  const api = async <T,>(q: string) => (await (await fetch(`${baseURL}/__ursula/api/buckets/${bucket}/streams?${q}`)).json()) as T;
  // Node's fetch, not Playwright's request fixture: 10,000 calls through the driver are slow.
  const t0 = Date.now();
  await fanOut(10_000, 24, async (i) => {
    const res = await fetch(`${baseURL}/${bucket}/${name(i)}`, { method: "PUT", headers: { "Content-Type": "application/json" } });
    // A plain check: 10,000 expect() calls would each be recorded as a trace step.
    if (res.status !== 201) throw new Error(`PUT ${name(i)}: ${res.status}`);
  });
  console.log(`setup: 10,000 PUTs in ${Date.now() - t0} ms`);
  // 300 streams get writes of different sizes, each with a Stream-Seq; every 15th of those is closed.
  const written = Array.from({ length: 300 }, (_, k) => 1 + k * 33);
  const closed = written.filter((_, k) => k % 15 === 0).map(name);
  await fanOut(written.length, 16, async (k) => {
    const i = written[k]!;
    const body = JSON.stringify(Array.from({ length: 1 + (k % 17) }, (_, j) => ({ j })));
    const res = await fetch(`${baseURL}/${bucket}/${name(i)}`, { method: "POST", headers: { "Content-Type": "application/json", "Stream-Seq": pad(1000 - k) }, body });
    if (res.status !== 204) throw new Error(`POST ${name(i)}: ${res.status}`);
    if (k % 15 === 0) await fetch(`${baseURL}/${bucket}/${name(i)}`, { method: "POST", headers: { "Stream-Closed": "true" } });
  });
  const big = `/${bucket}/${name(0)}`;
  for (let b = 0; b < 200; b++) {
    const body = JSON.stringify(Array.from({ length: 500 }, (_, i) => ({ n: b * 500 + i, kind: "tick" })));
    const res = await fetch(`${baseURL}${big}`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    if (res.status !== 204) throw new Error(`POST batch ${b}: ${res.status}`);
  }
  console.log(`setup: + 300 writes, 20 closes, 100,000 messages at ${Date.now() - t0} ms`);
  // A sorted listing places streams by the columns written ~100 ms after each append: wait until
  // the order settles, so the UI and the API are compared on the same data.
  await expect
    .poll(async () => {
      const p = await api<{ streams: { tail_offset: number }[] }>("sort=tail&order=desc&limit=300");
      return p.streams.every((s, i, a) => i === 0 || a[i - 1]!.tail_offset >= s.tail_offset);
    })
    .toBe(true);

  let t = Date.now();
  await page.goto(`/ui/b/${bucket}`);
  await expect(page.getByTestId("stream-total")).toHaveText("10,000 streams");
  const rows = page.getByRole("table", { name: "Streams" }).locator("tbody tr");
  await expect(rows).toHaveCount(100);
  const listMs = Date.now() - t;

  // Sort by tail, biggest first: the page is the API's page, and the 100,000-message stream leads.
  t = Date.now();
  await page.getByRole("button", { name: /^Tail/ }).click();
  await expect(page).toHaveURL(/sort=tail/);
  await expect(rows.first()).toHaveAttribute("data-stream", name(0));
  await expect(page.getByRole("columnheader", { name: /Tail/ })).toHaveAttribute("aria-sort", "descending");
  const byTail = await api<{ streams: { stream_id: string }[]; next_cursor: string }>("sort=tail&order=desc&limit=100");
  expect(await names(page)).toEqual(byTail.streams.map((s) => s.stream_id));
  const sortMs = Date.now() - t;
  // The next page goes on from the cursor, in the same order.
  await page.getByRole("button", { name: "Next →" }).click();
  const page2 = await api<{ streams: { stream_id: string }[] }>(`sort=tail&order=desc&limit=100&after=${encodeURIComponent(byTail.next_cursor)}`);
  await expect(rows.first()).toHaveAttribute("data-stream", page2.streams[0]!.stream_id);
  expect(await names(page)).toEqual(page2.streams.map((s) => s.stream_id));

  // Sort by last Stream-Seq, ascending on a second click: streams without one come first.
  await page.getByRole("button", { name: /^Last Stream-Seq/ }).click();
  await expect(page.getByRole("columnheader", { name: /Last Stream-Seq/ })).toHaveAttribute("aria-sort", "descending");
  await expect(rows.first().locator('[data-col="last_seq"]')).toHaveText(pad(1000));
  await page.getByRole("button", { name: /^Last Stream-Seq/ }).click();
  await expect(page.getByRole("columnheader", { name: /Last Stream-Seq/ })).toHaveAttribute("aria-sort", "ascending");
  await expect(rows.first().locator('[data-col="last_seq"]')).toHaveText("none");

  // Filters: the closed ones (a 1-in-500 filter, scanned on the server within its budget), then a name.
  t = Date.now();
  await page.getByLabel("State").selectOption("closed");
  await expect(rows).toHaveCount(closed.length);
  expect((await names(page)).sort()).toEqual([...closed].sort());
  await expect(rows.locator('[data-col="state"]').first()).toHaveText("closed");
  const filterMs = Date.now() - t;
  await page.getByLabel("State").selectOption("any");
  await page.getByLabel("Name contains").fill("s-0999");
  await expect(rows).toHaveCount(10);
  // None of these has a Stream-Seq, so they come in name order; finding them took the server more
  // than one scan budget, which the console asked on from by itself.
  expect(await names(page)).toEqual(Array.from({ length: 10 }, (_, i) => name(9990 + i)));
  await expect(page.getByText(/10 shown · 10,000 looked at/)).toBeVisible();
  await shot(page, screenshotPath("console-scale-list"));
  await page.setViewportSize({ width: 1920, height: 1000 });
  await shot(page, screenshotPath("console-scale-list-1920"));
  await page.setViewportSize({ width: 1280, height: 720 });

  // The viewer: one page at first, more as it scrolls; never more than the rows in view in the DOM.
  t = Date.now();
  await page.goto(`/ui/s/${bucket}/${name(0)}`);
  await expect(page.locator('[data-field="message_count"]')).toHaveText("100,000");
  const list = page.getByRole("list", { name: "Messages" });
  await expect(list.locator("li").first()).toContainText('{"n": 0, "kind": "tick"}');
  const viewerMs = Date.now() - t;
  await expect(page.getByTestId("viewer-range")).toContainText("200 messages loaded");
  // The list scrolls in its own box: the wheel over it loads on.
  await list.locator("li").nth(3).hover();
  for (let i = 0; i < 12; i++) await page.mouse.wheel(0, 4000);
  await expect(page.getByTestId("viewer-range")).not.toContainText(/^200 messages/);
  expect(await list.locator("li").count()).toBeLessThan(120);
  await page.getByRole("button", { name: "Newest" }).click();
  await expect(list.locator("li").last()).toContainText('{"n": 99999, "kind": "tick"}');
  await expect(page.getByTestId("message-detail")).toContainText('"n": 99999');
  expect(await list.locator("li").count()).toBeLessThan(120);
  await page.locator("#panel-messages").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await page.screenshot({ path: screenshotPath("console-scale-viewer") });

  t = Date.now();
  await page.getByRole("tab", { name: /Live tail/ }).click();
  await page.getByRole("button", { name: "From oldest" }).click();
  await page.getByRole("button", { name: "Start live tail" }).click();
  await expect(page.getByTestId("tail-counts")).toHaveText("100000 received · 500 kept · 99500 dropped", { timeout: 30_000 });
  const tailMs = Date.now() - t;
  await expect(page.getByRole("list", { name: "Live messages, newest first" }).locator("li").first()).toContainText('"n": 99999');

  // Generous bounds for a loaded 2-core CI box; typical values are a few hundred ms each.
  console.log(`scale: list ${listMs} ms, sort ${sortMs} ms, closed filter ${filterMs} ms, viewer ${viewerMs} ms, tail of 100k ${tailMs} ms`);
  expect(listMs).toBeLessThan(5000);
  expect(sortMs).toBeLessThan(5000);
  expect(filterMs).toBeLessThan(5000);
  expect(viewerMs).toBeLessThan(5000);
  expect(tailMs).toBeLessThan(15000);
  await shot(page, screenshotPath("console-scale"));
});
