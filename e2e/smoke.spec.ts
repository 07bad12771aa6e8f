// The console is served by the binary itself at /ui/ and renders: the one thing every other
// console spec assumes.
import { test, expect, screenshotPath } from "./fixtures.ts";

test("console loads at /ui/ with an ursa heading", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  const res = await page.goto("/ui/");
  expect(res?.status()).toBe(200);
  await expect(page.locator("h1")).toContainText("ursa", { ignoreCase: true });
  expect(errors).toEqual([]);
  await page.screenshot({ path: screenshotPath("smoke"), fullPage: true });
});
