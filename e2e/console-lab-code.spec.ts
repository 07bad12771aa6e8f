// "This step in code": every lab step can show the ursa-client calls a user writes for it, and
// the lab runs those calls. Opened here on a pending step, a finished step and a race lane, at
// 390 and 1280 px, light and dark: each names the package's call, and the step it belongs to
// made the requests that call makes.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Locator, Page } from "@playwright/test";

const sidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

async function openCode(scope: Locator, label = "This step in code"): Promise<Locator> {
  const code = scope.getByTestId("step-code").first();
  await code.getByText(label, { exact: true }).click();
  const pre = code.locator("pre");
  await expect(pre).toBeVisible();
  return pre;
}

for (const width of [390, 1280]) {
  test(`outbox lab at ${width} px: a step's code is the OutboxPublisher call the step made`, async ({ page }) => {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await page.goto("/ui/lab/outbox");
    // Before it runs: step 2 already says what it will call.
    const pending = page.locator("li.script-step.pending").nth(1);
    await expect(pending).toContainText("Old owner publishes fact 1");
    await expect(await openCode(pending)).toContainText("new OutboxPublisher(url, { producerId, epoch })");
    await page.getByRole("button", { name: "Run all" }).click();
    await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 25_000 });
    // After it ran: the new owner's republish shows publish() answering "already-published", and
    // its request carries both guards the package sends.
    const already = page.locator('li.script-step[data-step="6"]');
    const code = await openCode(already);
    await expect(code).toContainText("await next.publish(2, [body])");
    await expect(code).toContainText('"already-published"');
    await already.getByText("Request and response").click();
    for (const header of ["Producer-Id outbox-publisher", "Producer-Epoch 1", "Producer-Seq 0", "Stream-Seq 00000000000000000002"])
      await expect(already.getByRole("row", { name: header, exact: true }).first()).toBeVisible();
    expect(await sidewaysScroll(page)).toBe(0);
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await already.scrollIntoViewIfNeeded();
      await already.screenshot({ path: screenshotPath(`lab-code-outbox-${width}-${scheme}`) });
    }
  });
}

test("race lab: each lane entry shows the PrefixCountWriter call, and the setup its create()", async ({ page }) => {
  await page.goto("/ui/lab/race");
  const step = page.getByRole("button", { name: "Step", exact: true });
  await step.click();
  await expect(page.locator('.swim-cell[data-writer="A"] [data-kind="read"]')).toContainText("n = 0");
  await expect(await openCode(page.locator(".lab-layout .muted").filter({ hasText: "created by a PUT without Stream-Seq" }))).toContainText(
    'await s.create({ contentType: "application/json" })',
  );
  await step.click();
  await step.click();
  const commit = page.locator('.swim-cell[data-writer="A"] [data-kind="commit"]').first();
  await expect(commit).toHaveAttribute("data-status", "204");
  const code = await openCode(commit, "in code");
  await expect(code).toContainText("await writer.commit((log) => {");
  await expect(code).toContainText("return events; // Stream-Seq = log.n");
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.locator(".swimlane").screenshot({ path: screenshotPath(`lab-code-race-1280-${scheme}`) });
  }
});

test("compaction lab: the read, publish and trim steps are one compact() call, held at each request", async ({ page }) => {
  await page.goto("/ui/lab/compaction");
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 25_000 });
  const done = page.locator("li.script-step.done");
  await expect(await openCode(done.nth(3))).toContainText("const c = await compact(a, (events) => fold(events));");
  await expect(await openCode(done.nth(4))).toContainText("publishSnapshot(offset, { count, state })");
  await expect(await openCode(done.nth(5))).toContainText("retain(offset)");
  // Each step shows the one request of compact() it let go: the read, the snapshot, the trim.
  await expect(done.nth(3).locator(".step-request")).toContainText("GET /labs/compaction-");
  await expect(done.nth(4).locator(".step-request")).toContainText("/snapshot/");
  await expect(done.nth(5).locator(".step-request")).toContainText("/retention/");
  await expect(await openCode(done.nth(6))).toContainText("await resumeFromSnapshot(url)");
});
