// Light and dark: the console follows prefers-color-scheme until the theme control picks one,
// which is remembered across reloads; "System" follows the system again, live. The control is
// three labelled choices, the one in force pressed.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { put, shot, uniq } from "./console/helpers.ts";

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);

test("dark mode: from the system, by the theme control, remembered", async ({ page, request }) => {
  const bucket = uniq("theme");
  await put(request, `/${bucket}/s`);
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`/ui/s/${bucket}/s`);
  expect(await theme(page)).toBe("dark");
  expect(await background(page)).toBe("rgb(15, 18, 22)");
  const control = page.getByRole("group", { name: "Theme" });
  const choice = (name: string) => control.getByRole("button", { name, exact: true });
  const pressed = () => control.locator('button[aria-pressed="true"]');
  await expect(pressed()).toHaveText("System");
  await expect(choice("System")).toHaveAttribute("title", "Follow the system (dark now)");
  await shot(page, screenshotPath("console-theme-dark-1280"));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await shot(page, screenshotPath("console-theme-dark-1920"));

  // The system changes: the console follows at once.
  await page.emulateMedia({ colorScheme: "light" });
  await expect.poll(() => theme(page)).toBe("light");

  // Light, then dark, remembered over a reload whatever the system says.
  await choice("Light").click();
  await expect(pressed()).toHaveText("Light");
  expect(await theme(page)).toBe("light");
  await choice("Dark").click();
  await expect(pressed()).toHaveText("Dark");
  expect(await theme(page)).toBe("dark");
  await page.reload();
  expect(await theme(page)).toBe("dark");
  await page.goto("/ui/lab/race");
  await page.getByRole("button", { name: "Step", exact: true }).click();
  await expect(page.locator('.swim-cell[data-writer="A"] [data-kind="read"]')).toBeVisible();
  await shot(page, screenshotPath("console-theme-dark-race-1920"));
  // Back to following the system.
  await choice("System").click();
  await expect(pressed()).toHaveText("System");
  expect(await theme(page)).toBe("light");
  await page.reload();
  await expect(pressed()).toHaveText("System");
  expect(await theme(page)).toBe("light");
});
