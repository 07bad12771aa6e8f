// A stream page opens at its guards: at 1280×800 and on a 390×844 phone the page is at the top,
// with the "State and guards" panel on screen, although the message list selects its first
// message. Selecting a message by click, stepping with the arrow keys and jumping to the newest
// move only the list's own scroll box, never the page.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { post, put, uniq } from "./console/helpers.ts";

const pad = (n: number) => String(n).padStart(20, "0");
const scrollY = (page: Page) => page.evaluate(() => window.scrollY);
const listScroll = (page: Page) => page.locator(".vlist-box").evaluate((el) => el.scrollTop);

/** A JSON stream with 300 messages (a list far taller than its box), a Stream-Seq and a producer. */
async function longStream(request: import("@playwright/test").APIRequestContext): Promise<string> {
  const bucket = uniq("open");
  await put(request, `/${bucket}/events`);
  await post(request, `/${bucket}/events`, JSON.stringify(Array.from({ length: 299 }, (_, i) => ({ n: i, kind: "tick" }))), { "Stream-Seq": pad(0) });
  await post(request, `/${bucket}/events`, '[{"n":299,"kind":"last"}]', { "Producer-Id": "p", "Producer-Epoch": "0", "Producer-Seq": "0" });
  return `/ui/s/${bucket}/events`;
}

async function expectOpensAtGuards(page: Page, url: string, firstMessage: string) {
  await page.goto(url);
  // The list has selected its first message and shows it in the detail pane…
  await expect(page.getByTestId("message-detail")).toContainText(firstMessage);
  await expect(page.getByRole("list", { name: "Messages" }).locator("li.selected")).toHaveCount(1);
  // …and the page has not moved: the state and its guards are what the reader sees first.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  expect(await scrollY(page)).toBe(0);
  const state = page.getByRole("region", { name: "State and guards" });
  await expect(state).toBeInViewport();
  await expect(state.locator('[data-field="last_stream_seq"]')).toBeInViewport();
}

for (const [w, h] of [
  [1280, 800],
  [390, 844],
] as const) {
  test(`a stream page opens at its guards and selecting a message never scrolls the page (${w} px)`, async ({ page, request }) => {
    await page.setViewportSize({ width: w, height: h });
    const url = await longStream(request);
    await expectOpensAtGuards(page, url, '"n": 0');
    await page.screenshot({ path: screenshotPath(`console-stream-open-${w}`) });

    // The reader scrolls down to the list and clicks a message: the page stays where it was.
    const rows = page.getByRole("list", { name: "Messages" }).locator("li");
    const fifth = rows.nth(4).locator("button.msg-select");
    await fifth.scrollIntoViewIfNeeded();
    let before = await scrollY(page);
    await fifth.click();
    await expect(page.getByTestId("message-detail")).toContainText('"n": 4');
    expect(await scrollY(page)).toBe(before);

    // Thirty steps down with the keyboard: the list's box scrolls to follow, the page does not.
    for (let i = 0; i < 30; i++) await page.keyboard.press("ArrowDown");
    await expect(page.getByTestId("message-detail")).toContainText('"n": 34');
    await expect(page.locator('li.selected button.msg-select')).toBeFocused();
    expect(await scrollY(page)).toBe(before);
    expect(await listScroll(page)).toBeGreaterThan(0);
    await expect(page.locator("li.selected")).toBeInViewport();

    // Newest: the last message is selected and shown at the bottom of the box, and the list stays
    // where it was on screen. (Text above it may rewrap, such as the offsets panel's window on a
    // phone; the browser's scroll anchoring then moves scrollY by that much to keep the list still.)
    const newest = page.getByRole("button", { name: "Newest" });
    await newest.scrollIntoViewIfNeeded();
    const boxTop = async () => (await page.locator(".vlist-box").boundingBox())!.y;
    const listAt = await boxTop();
    await newest.click();
    await expect(page.getByTestId("message-detail")).toContainText('"kind": "last"');
    await expect(page.locator("li.selected")).toContainText('"last"');
    expect(Math.abs((await boxTop()) - listAt)).toBeLessThan(1);
    // In the box's own view (the box may reach below the window on a phone: that is the page's business).
    const inBox = await page.locator("li.selected").evaluate((li) => {
      const r = li.getBoundingClientRect();
      const b = li.closest(".vlist-box")!.getBoundingClientRect();
      return r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
    });
    expect(inBox).toBe(true);
    await page.locator("#panel-messages").evaluate((el) => el.scrollIntoView({ block: "start" }));
    await page.screenshot({ path: screenshotPath(`console-stream-open-newest-${w}`) });

    // A link to an offset opens there, at the top of the page all the same.
    await page.goto(`${url}?from=${encodeURIComponent("0000000000000000_0000000000000300")}`);
    await expect(page.getByTestId("message-detail")).toBeVisible();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(await scrollY(page)).toBe(0);
  });
}

test("a short stream opens at the top too (the case measured in issue 45: 4 messages below the fold)", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const bucket = uniq("open");
  await put(request, `/${bucket}/log`);
  for (let n = 0; n < 4; n++) await post(request, `/${bucket}/log`, JSON.stringify([{ by: n % 2 ? "B" : "A", step: n }]), { "Stream-Seq": pad(n) });
  await expectOpensAtGuards(page, `/ui/s/${bucket}/log`, '"step": 0');
});
