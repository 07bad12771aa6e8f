// The compaction lab against the compiled binary: a snapshot that keeps the event count, then
// retention, a second client that counts on from it, a reader that recovers from a 410 through
// bootstrap (PASS); and the pitfall, a snapshot without the count, where every retry of the
// second client answers 409 (FAIL). Each verdict is checked against the stream from outside.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { APIRequestContext, Page } from "@playwright/test";
import { shot } from "./console/helpers.ts";
import { axeViolations, expectLayoutHolds } from "./console/a11y.ts";
import { parseMultipart } from "../clients/ts/src/index.ts";

async function streamOf(page: Page): Promise<string> {
  const path = await page.locator(".lab-layout a.mono").first().textContent();
  expect(path).toMatch(/^\/labs\/compaction-/);
  return path!;
}

async function bootstrapOf(request: APIRequestContext, path: string) {
  const res = await request.get(`${path}/bootstrap`);
  expect(res.status()).toBe(200);
  const boundary = /boundary=(\S+)/.exec(res.headers()["content-type"]!)![1]!;
  const [snapshot, ...messages] = parseMultipart(new Uint8Array(await res.body()), boundary);
  return { headers: res.headers(), snapshot: JSON.parse(Buffer.from(snapshot!.body).toString()), messages: messages.map((m) => JSON.parse(Buffer.from(m.body).toString())) };
}

test("compaction lab: count kept in the snapshot, retention, a writer counts on, a reader recovers from 410", async ({ page, request }) => {
  await page.goto("/ui/");
  await page.getByRole("link", { name: /Compaction lab: snapshot, trim, count on/ }).click();
  await expect(page).toHaveURL(/\/ui\/lab\/compaction$/);
  // Every step is named before the first one runs.
  const steps = page.locator("li.script-step");
  await expect(steps).toHaveCount(10);
  await expect(steps.nth(4)).toContainText("Publish a snapshot there that records the event count with the state");
  await expect(steps.nth(8)).toContainText("Read from offset=-1");
  await page.getByRole("button", { name: "Step", exact: true }).click();
  await expect(page.locator("li.script-step.done")).toHaveCount(1);
  await page.getByRole("button", { name: "Run all" }).click();
  const verdict = page.getByTestId("verdict");
  await expect(verdict).toHaveAttribute("data-ok", "true", { timeout: 20_000 });
  await expect(verdict).toContainText("PASS");
  await expect(page.locator("li.script-step.done[data-ok=false]")).toHaveCount(0);

  // The stream as the HTTP API sees it: retained from the snapshot, which keeps the count; -1 is
  // 410; B's event was committed with Stream-Seq 5, the events before it.
  const path = await streamOf(page);
  const head = await request.head(path);
  const floor = head.headers()["stream-retained-offset"]!;
  expect(head.headers()["stream-snapshot-offset"]).toBe(floor);
  expect(floor).not.toBe("0000000000000000_0000000000000000");
  const gone = await request.get(`${path}?offset=-1`);
  expect(gone.status()).toBe(410);
  expect(gone.headers()["stream-earliest-offset"]).toBe(floor);
  const b = await bootstrapOf(request, path);
  expect(b.snapshot).toEqual({ count: 5, state: { sum: 15 } });
  expect(b.messages).toEqual([{ n: 6 }]);
  const detail = await (await request.get(`/__ursula/api/streams${path}`)).json();
  expect(detail.last_stream_seq).toBe("00000000000000000005");
  await expect(page.locator("li.script-step.done").nth(7)).toContainText("Accepted with Stream-Seq 00000000000000000005");
  await expect(page.locator("li.script-step.done").nth(9)).toContainText("sum 21, 6 events");
  // The page run to its verdict, as console-a11y.spec.ts checks every other page.
  expect(await axeViolations(page)).toEqual([]);
  await shot(page, screenshotPath("console-compaction-lab-1280"));
  for (const width of [1024, 1280, 1920, 2560]) {
    await page.setViewportSize({ width, height: 1000 });
    await expectLayoutHolds(page, `compaction lab at ${width} px`);
  }
  await page.setViewportSize({ width: 1920, height: 1000 });
  await shot(page, screenshotPath("console-compaction-lab-1920"));
});

test("compaction lab pitfall: a snapshot without the count leaves the next writer on 409 forever", async ({ page, request }) => {
  await page.goto("/ui/lab/compaction");
  await page.getByLabel(/Leave the event count out of the snapshot/).check();
  const steps = page.locator("li.script-step");
  await expect(steps).toHaveCount(12);
  await expect(steps.nth(4)).toContainText("keeps only the state, not the count");
  await page.getByRole("button", { name: "Run all" }).click();
  const verdict = page.getByTestId("verdict");
  await expect(verdict).toHaveAttribute("data-ok", "false", { timeout: 20_000 });
  await expect(verdict).toContainText("every retry answers 409");
  // Each of B's three commits was refused with the stored value next to B's too-small count.
  for (const i of [7, 8, 9]) {
    const step = page.locator("li.script-step.done").nth(i);
    await expect(step).toContainText("409: B sent 00000000000000000000, the stream holds Stream-Last-Seq 00000000000000000003");
    await expect(step.locator('.chip[data-outcome="409-seq"]')).toBeVisible();
  }
  // Nothing of B's reached the stream: after the snapshot, no message; the stored value is A's 3.
  const path = await streamOf(page);
  const b = await bootstrapOf(request, path);
  expect(b.snapshot).toEqual({ state: { sum: 15 } });
  expect(b.messages).toEqual([]);
  const detail = await (await request.get(`/__ursula/api/streams${path}`)).json();
  expect(detail.last_stream_seq).toBe("00000000000000000003");
  expect(detail.message_count).toBe(5);
  await shot(page, screenshotPath("console-compaction-pitfall-1280"));
  // The FAIL verdict and the refusals in the dark theme too.
  await page.emulateMedia({ colorScheme: "dark" });
  expect(await axeViolations(page)).toEqual([]);
});
