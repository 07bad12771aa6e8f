// The server page reads ursa's own metrics (/__ursula/metrics) and readiness (/__ursula/ready):
// the append rate while appends arrive, commit and sync latency, and every family with the value
// the endpoint reports, compared with a scrape made outside the browser.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { post, put, shot, uniq } from "./console/helpers.ts";

test("server page: append rate, commit and sync latency, readiness, from the real metrics", async ({ page, request }) => {
  const path = `/${uniq("metrics")}/events`;
  await put(request, path);
  await page.goto("/ui/server");
  await expect(page.locator('[data-field="readiness"]')).toHaveText("ready");
  await expect(page.locator('[data-field="sync"]')).toHaveText("full");
  await expect(page.getByTestId("no-metrics")).toHaveCount(0);
  // Appends while the page scrapes: some window sees them as a rate.
  const rate = page.locator('[data-field="append_rate"]');
  for (let i = 0; i < 20; i++) expect((await post(request, path, `[{"i":${i}},{"i":${i}.5}]`)).status()).toBe(204);
  await expect(rate).toHaveText(/^[1-9][\d.,]* messages\/s · [\d.]+ (B|KiB)\/s$/, { timeout: 8000 });
  await expect(page.locator('[data-field="commit_latency"]')).toHaveText(/^[\d.]+ (µs|ms) · [\d.]+ (µs|ms)$/);
  await expect(page.locator('[data-field="sync_latency"]')).toHaveText(/^[\d.]+ (µs|ms) · [\d.]+ (µs|ms)$/);

  // With the appends done, the table's counter settles on what the endpoint says.
  const scraped = await (await request.get("/__ursula/metrics")).text();
  const appended = Number(/^ursa_appended_messages_total (\d+)$/m.exec(scraped)![1]);
  expect(appended).toBeGreaterThanOrEqual(40);
  await page.getByText(/^Every metric/).click();
  const row = page.getByRole("table", { name: "Metrics" }).locator("tr", { hasText: "ursa_appended_messages_total" });
  await expect(row.locator("td").nth(2)).toHaveText(appended.toLocaleString("en-US"), { timeout: 6000 });
  await expect(page.getByRole("table", { name: "Metrics" }).locator("tr", { hasText: "ursa_group_commit_sync_seconds" }).locator("td").nth(1)).toHaveText("histogram");
  await shot(page, screenshotPath("console-server-1280"));
  await page.setViewportSize({ width: 1920, height: 1000 });
  await shot(page, screenshotPath("console-server-1920"));
});
