// Every lab ends with the same verdict panel: what happened, what the guard prevented, and the
// one thing to remember. Each lab is run to it at 390 px (a phone) and 1280 px, with no sideways
// scroll, and the verdict is photographed in light and dark.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";

const LABS: { lab: string; run: (page: Page) => Promise<void> }[] = [
  { lab: "race", run: (page) => page.getByRole("button", { name: "Run step by step" }).click() },
  { lab: "outbox", run: (page) => page.getByRole("button", { name: "Run all" }).click() },
  { lab: "incarnation", run: (page) => page.getByRole("button", { name: "Run all" }).click() },
  { lab: "compaction", run: (page) => page.getByRole("button", { name: "Run all" }).click() },
];

const sidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

for (const width of [390, 1280]) {
  for (const { lab, run } of LABS) {
    test(`${lab} lab at ${width} px ends with a verdict in three parts`, async ({ page }) => {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      await page.goto(`/ui/lab/${lab}`);
      await run(page);
      const verdict = page.getByTestId("verdict");
      await expect(verdict).toHaveAttribute("data-ok", "true", { timeout: 25_000 });
      await expect(verdict).toContainText("PASS");
      for (const part of ["happened", "prevented", "remember"]) await expect(page.getByTestId(`verdict-${part}`)).toHaveText(/\w{3,}.*\./);
      await expect(verdict.locator("dt")).toHaveText(["What happened", "What the guard prevented", "Remember"]);
      expect(await sidewaysScroll(page)).toBe(0);
      const panel = page.locator("section#verdict");
      for (const scheme of ["light", "dark"] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await panel.scrollIntoViewIfNeeded();
        await panel.screenshot({ path: screenshotPath(`lab-verdict-${lab}-${width}-${scheme}`) });
      }
    });
  }
}

test("race lab at 390 px: the swimlane stacks its writers and the commits become cards", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/ui/lab/race");
  await page.getByRole("button", { name: "Run step by step" }).click();
  await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 25_000 });
  // Each row shows only the writer that acted, full width, and names it.
  const cells = page.locator(".swim-cell.active");
  const first = await cells.first().boundingBox();
  expect(first!.width).toBeGreaterThan(250);
  await expect(cells.first().locator(".swim-who")).toHaveText("Writer A");
  await expect(page.locator(".swim-cell:not(.active)").first()).toBeHidden();
  // A commit is a card: every column's value is on screen with its label.
  const card = page.getByRole("table", { name: "Commits in log order" }).locator("tbody tr").first();
  const box = (await card.boundingBox())!;
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  await expect(card.locator('td[data-label="Writer had read"]')).toBeVisible();
  expect(await sidewaysScroll(page)).toBe(0);
  await page.locator(".swimlane").screenshot({ path: screenshotPath("lab-race-swimlane-390") });
});
