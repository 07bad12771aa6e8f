// The console works from the keyboard alone: reach the composer from the sidebar, send a
// request, switch stream tabs with the arrow keys, step the race lab.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { put, shot, uniq } from "./console/helpers.ts";

/** Press Tab until the focused element matches, as a keyboard user would. */
async function tabTo(page: Page, matches: (el: { tag: string; text: string; label: string }) => boolean, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press("Tab");
    const el = await page.evaluate(() => {
      const a = document.activeElement as HTMLElement | null;
      return { tag: a?.tagName ?? "", text: (a?.textContent ?? "").trim(), label: a?.getAttribute("aria-label") ?? "" };
    });
    if (matches(el)) return;
  }
  throw new Error("focus never reached the element");
}

test("keyboard only: sidebar to composer, send, stream tabs, race lab step", async ({ page, request }) => {
  const bucket = uniq("keys");
  await put(request, `/${bucket}/s`);
  await page.goto("/ui/");
  await tabTo(page, (el) => el.tag === "A" && el.text === "Composer");
  // The focused link is visibly marked.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle);
  expect(outline).toBe("solid");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/ui\/compose$/);

  await tabTo(page, (el) => el.label === "Target path");
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(`/${bucket}/s`);
  await tabTo(page, (el) => el.tag === "BUTTON" && el.text === "Send");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("response-status")).toHaveText("204");

  await page.goto(`/ui/s/${bucket}/s`);
  await page.getByRole("tab", { name: "Messages" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/tab=tail/);
  await expect(page.getByRole("tab", { name: /Live tail/ })).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Start live tail" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("tail-status")).toHaveAttribute("data-status", "live");

  await page.goto("/ui/lab/race");
  await tabTo(page, (el) => el.tag === "BUTTON" && el.text === "Step");
  await page.keyboard.press("Enter");
  await expect(page.locator('.swim-cell[data-writer="A"] [data-kind="read"]')).toBeVisible();
  await shot(page, screenshotPath("console-keyboard"));
});

test("keyboard only: a row's action menu and its dialog, the message list's arrow keys", async ({ page, request }) => {
  const bucket = uniq("keys");
  await put(request, `/${bucket}/s`);
  await request.post(`/${bucket}/s`, { headers: { "Content-Type": "application/json" }, data: '[{"m":1},{"m":2},{"m":3}]' });
  await page.goto(`/ui/b/${bucket}`);
  await tabTo(page, (el) => el.label === "Actions for s");
  await page.keyboard.press("Enter");
  await tabTo(page, (el) => el.tag === "BUTTON" && el.text === "Delete…", 5);
  await page.keyboard.press("Enter");
  const dialog = page.getByTestId("delete-dialog");
  await expect(dialog).toBeVisible();
  // Focus is inside the dialog; Escape closes it and nothing was deleted.
  expect(await page.evaluate(() => !!document.activeElement?.closest("dialog"))).toBe(true);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  expect((await request.head(`/${bucket}/s`)).status()).toBe(200);

  await page.goto(`/ui/s/${bucket}/s`);
  const rows = page.getByRole("list", { name: "Messages" }).locator("li");
  await expect(rows).toHaveCount(3);
  await rows.first().getByRole("button").focus();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("message-detail")).toContainText('"m": 2');
  await expect(rows.nth(1).getByRole("button")).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(page.getByTestId("message-detail")).toContainText('"m": 3');
  await page.keyboard.press("ArrowUp");
  await expect(page.getByTestId("message-detail")).toContainText('"m": 2');
});
