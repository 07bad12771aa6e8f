// Labs leave nothing behind: their streams live in the labs bucket with a Stream-TTL of a day at
// most, and a lab deletes them on New run, on Reset, when the visitor leaves for another page,
// and (keepalive fetch) when the page is closed. Looking at the lab's own stream is not leaving.
import { test, expect } from "./fixtures.ts";
import type { APIRequestContext, Page } from "@playwright/test";

/** The stream the lab's current run created, from the note under the lab's title. */
async function labStream(page: Page): Promise<string> {
  const link = page.getByTestId("lab-streams").locator("a.mono").first();
  await expect(link).toBeVisible({ timeout: 15_000 });
  const path = (await link.textContent())!;
  expect(path).toMatch(/^\/labs\//);
  return path;
}

async function expectShortLived(request: APIRequestContext, path: string) {
  const head = await request.head(path);
  expect(head.status()).toBe(200);
  const ttl = Number(head.headers()["stream-ttl"]);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(24 * 60 * 60);
}

const gone = (request: APIRequestContext, path: string) => expect.poll(async () => (await request.head(path)).status(), { timeout: 10_000 }).toBe(404);

test("race lab: its stream carries a TTL of a day at most, and New run deletes it", async ({ page, request }) => {
  await page.goto("/ui/lab/race");
  await page.getByRole("button", { name: "Step", exact: true }).click();
  const path = await labStream(page);
  await expectShortLived(request, path);
  await page.getByRole("button", { name: "New run" }).click();
  await gone(request, path);
  await expect(page.getByTestId("lab-streams").locator("a.mono")).toHaveCount(0);
});

test("outbox lab: leaving the lab for another page deletes its stream", async ({ page, request }) => {
  await page.goto("/ui/lab/outbox");
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.getByTestId("verdict")).toBeVisible({ timeout: 20_000 });
  const path = await labStream(page);
  await expectShortLived(request, path);
  await page.getByRole("link", { name: "Server", exact: true }).click();
  await expect(page).toHaveURL(/\/ui\/server$/);
  await gone(request, path);
  // Coming back starts a new run on a new stream.
  await page.getByRole("link", { name: "Outbox lab", exact: true }).click();
  await expect(page.locator("li.script-step.done")).toHaveCount(0);
});

test("incarnation lab: Reset deletes the recreated stream; the refused PUT never made one", async ({ page, request }) => {
  await page.goto("/ui/lab/incarnation");
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.getByTestId("verdict")).toBeVisible({ timeout: 20_000 });
  const path = await labStream(page);
  await expectShortLived(request, path);
  await page.getByRole("button", { name: "Reset" }).click();
  await gone(request, path);
  expect((await request.head(`${path}-missing`)).status()).toBe(404);
});

test("compaction lab: looking at its stream keeps it; leaving from there deletes it", async ({ page, request }) => {
  await page.goto("/ui/lab/compaction");
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.getByTestId("verdict")).toBeVisible({ timeout: 20_000 });
  const path = await labStream(page);
  await page.getByTestId("lab-streams").locator("a.mono").first().click();
  await expect(page).toHaveURL(/\/ui\/s\/labs\//);
  expect((await request.head(path)).status()).toBe(200);
  await page.getByRole("link", { name: "Server", exact: true }).click();
  await gone(request, path);
});

test("closing the page deletes the lab's stream (keepalive fetch)", async ({ page, request }) => {
  await page.goto("/ui/lab/race");
  await page.getByRole("button", { name: "Step", exact: true }).click();
  const path = await labStream(page);
  await page.close({ runBeforeUnload: true });
  await gone(request, path);
});
