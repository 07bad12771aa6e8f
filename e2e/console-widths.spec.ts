// Every console route on a 390×844 phone and at 1280×800: no page scrolls sideways, no panel
// leaves the window, the page's key control is on screen (the composer's Send, the start page's
// call to action, a stream's state and guards…), loading the page logs no console error, and the
// navigation is a sidebar on the laptop and a Menu button on the phone. Each route is saved as a
// screenshot at both widths in the light and the dark theme (e2e/screenshots/console-width-*).
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Locator, Page } from "@playwright/test";
import { expectLayoutHolds } from "./console/a11y.ts";
import { post, put, shot, uniq } from "./console/helpers.ts";

const pad = (n: number) => String(n).padStart(20, "0");

/** A bucket with a JSON stream (messages, a Stream-Seq, a producer), its fork, a closed stream and a compacted one. */
async function seed(request: import("@playwright/test").APIRequestContext): Promise<string> {
  const bucket = uniq("widths");
  const path = `/${bucket}/orders`;
  await put(request, path);
  await post(request, path, JSON.stringify(Array.from({ length: 60 }, (_, i) => ({ order: i, total: i * 3.5, customer: `customer-${i % 7}` }))), { "Stream-Seq": pad(0) });
  await post(request, path, '[{"order":"p"}]', { "Producer-Id": "checkout-service", "Producer-Epoch": "2", "Producer-Seq": "0" });
  await put(request, `/${bucket}/orders-replay`, { "Stream-Forked-From": path });
  await put(request, `/${bucket}/closed`, { "Stream-Closed": "true" });
  const compacted = `/${bucket}/compacted`;
  await put(request, compacted, { "Stream-Attrs": JSON.stringify({ title: "Compacted orders", metadata: { owner: "ana" } }) });
  await post(request, compacted, JSON.stringify(Array.from({ length: 6 }, (_, i) => ({ order: i }))));
  const floor = (await request.head(compacted)).headers()["stream-next-offset"]!;
  await post(request, compacted, '[{"order":6}]');
  expect((await request.put(`${compacted}/snapshot/${floor}`, { headers: { "Content-Type": "application/json" }, data: '{"count":6,"state":{}}' })).status()).toBe(204);
  expect((await request.put(`${compacted}/retention/${floor}`)).status()).toBe(204);
  return bucket;
}

interface Route {
  slug: string;
  url: string;
  /** What must be on screen when the page opens (in the first screenful, inside the width). */
  key: (page: Page) => Locator;
  /** Controls that must be visible and inside the window's width, wherever they are vertically. */
  reachable?: (page: Page) => Locator[];
  /** After the load checks: bring the page to a state worth a picture (an answer, an open row). */
  then?: (page: Page) => Promise<void>;
}

function routes(bucket: string): Route[] {
  const target = encodeURIComponent(`/${bucket}/orders`);
  return [
    { slug: "start", url: "/ui/", key: (p) => p.getByRole("button", { name: "Create the demo bucket" }), reachable: (p) => [p.getByRole("link", { name: /^Race lab: / })] },
    { slug: "glossary", url: "/ui/glossary", key: (p) => p.getByRole("heading", { name: "Glossary" }), reachable: (p) => [p.locator("#term-prefix-count dfn")] },
    { slug: "glossary-entry", url: "/ui/glossary#term-floor", key: (p) => p.locator("#term-floor dfn") },
    // Other specs' buckets may come first on a shared server: this one is reachable, not necessarily on the first screen.
    { slug: "buckets", url: "/ui/buckets", key: (p) => p.getByRole("heading", { level: 1, name: "Buckets" }), reachable: (p) => [p.getByRole("link", { name: bucket })] },
    {
      slug: "bucket",
      url: `/ui/b/${bucket}`,
      key: (p) => p.getByRole("button", { name: "Create stream" }),
      reachable: (p) => {
        const row = p.locator('tr[data-stream="orders"]');
        return [row.getByRole("link", { name: "orders", exact: true }), row.locator('[data-col="state"] .chip'), row.locator('[data-col="last_seq"]'), row.locator("summary")];
      },
      then: async (p) => {
        // The row's action menu opens whole: nothing around the list clips it.
        await p.locator('tr[data-stream="orders"] summary').click();
        const items = p.locator('tr[data-stream="orders"] .row-menu-items button');
        expect(await items.count()).toBeGreaterThan(3);
        for (const item of await items.all()) await expectUncovered(item);
      },
    },
    {
      slug: "stream",
      url: `/ui/s/${bucket}/orders`,
      key: (p) => p.getByRole("region", { name: "State and guards" }),
      reachable: (p) => [p.getByRole("button", { name: "Append…" }), p.getByRole("list", { name: "Messages" }).locator("li").first(), p.getByTestId("message-detail")],
    },
    { slug: "stream-tail", url: `/ui/s/${bucket}/orders?tab=tail`, key: (p) => p.getByRole("region", { name: "State and guards" }), reachable: (p) => [p.getByRole("button", { name: "Start live tail" })] },
    { slug: "stream-compacted", url: `/ui/s/${bucket}/compacted`, key: (p) => p.getByRole("region", { name: "State and guards" }), reachable: (p) => [p.getByRole("button", { name: "Publish snapshot…" })] },
    { slug: "fork", url: `/ui/s/${bucket}/orders-replay`, key: (p) => p.getByRole("region", { name: "State and guards" }), reachable: (p) => [p.getByTestId("fork-tree")] },
    { slug: "composer", url: "/ui/compose", key: (p) => p.getByRole("button", { name: "Send", exact: true }) },
    {
      slug: "composer-409",
      url: `/ui/compose?target=${target}`,
      key: (p) => p.getByRole("button", { name: "Send", exact: true }),
      then: async (p) => {
        await p.getByRole("checkbox", { name: /^Stream-Seq/ }).check();
        await p.getByRole("button", { name: "Send", exact: true }).click();
        await expect(p.getByTestId("response-status")).toHaveText("409");
      },
    },
    { slug: "timeline", url: "/ui/timeline", key: (p) => p.getByRole("heading", { name: "Attempt timeline" }), then: (p) => p.locator("li.attempt button.attempt-line").first().click() },
    { slug: "race-lab", url: "/ui/lab/race", key: (p) => p.getByRole("heading", { name: "Race lab" }), reachable: (p) => [p.locator("main button.primary").first()] },
    { slug: "outbox-lab", url: "/ui/lab/outbox", key: (p) => p.getByRole("heading", { name: "Outbox lab" }), reachable: (p) => [p.locator("main button.primary").first()] },
    { slug: "incarnation-lab", url: "/ui/lab/incarnation", key: (p) => p.getByRole("heading", { name: "Incarnation lab" }), reachable: (p) => [p.locator("main button.primary").first()] },
    { slug: "compaction-lab", url: "/ui/lab/compaction", key: (p) => p.getByRole("heading", { name: "Compaction lab" }), reachable: (p) => [p.locator("main button.primary").first()] },
    { slug: "server", url: "/ui/server", key: (p) => p.getByRole("heading", { name: "Server", exact: true }), reachable: (p) => [p.locator('[data-field="version"]')] },
    { slug: "not-found", url: "/ui/nothing/here", key: (p) => p.getByText("No such page.") },
  ];
}

/** Inside the window's width and inside its panel: not cut off at the right, not hanging over an edge. */
async function expectInsideWidth(page: Page, l: Locator, what: string) {
  await expect(l, what).toBeVisible();
  const box = (await l.boundingBox())!;
  const width = page.viewportSize()!.width;
  const panel = await l.evaluate((el) => {
    const p = el.closest(".panel");
    if (!p || p === el) return null;
    const r = p.getBoundingClientRect();
    return { left: r.left, right: r.right };
  });
  const right = Math.round(box.x + box.width);
  expect({ what, left: Math.round(box.x) >= Math.floor(panel?.left ?? 0), right: right <= Math.ceil(panel?.right ?? width) && right <= width }).toEqual({ what, left: true, right: true });
}

/** The element itself is what the window shows at its centre: not clipped away, not under something. */
async function expectUncovered(l: Locator) {
  const hit = await l.evaluate((el) => {
    // Scroll the page only (scrollIntoView would scroll a clipping box too, and hide the fault).
    window.scrollBy(0, el.getBoundingClientRect().top - innerHeight / 2);
    const r = el.getBoundingClientRect();
    const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return at === el || el.contains(at);
  });
  expect({ element: await l.textContent(), shown: hit }).toEqual({ element: await l.textContent(), shown: true });
}

async function sidewaysScroll(page: Page) {
  return page.evaluate(() => {
    const doc = document.scrollingElement!;
    return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth };
  });
}

for (const [w, h] of [
  [390, 844],
  [1280, 800],
] as const) {
  test(`every route at ${w}×${h}: no sideways scroll, key controls on screen, no console error; screenshots light and dark`, async ({ page, request }) => {
    test.setTimeout(240_000);
    await page.setViewportSize({ width: w, height: h });
    const bucket = await seed(request);
    const errors: string[] = [];
    page.on("console", (m) => m.type() === "error" && errors.push(`${new URL(page.url()).pathname}: ${m.text()}`));
    page.on("pageerror", (e) => errors.push(`${new URL(page.url()).pathname}: ${e.message}`));
    for (const r of routes(bucket)) {
      await page.emulateMedia({ colorScheme: "light" });
      errors.length = 0;
      await page.goto(r.url);
      await expect(r.key(page), `${r.slug}: key control`).toBeInViewport();
      await expectInsideWidth(page, r.key(page), `${r.slug}: key control`);
      for (const [i, l] of (r.reachable?.(page) ?? []).entries()) await expectInsideWidth(page, l, `${r.slug}: control ${i}`);
      // Let the page's first reads answer before judging the console.
      await page.waitForLoadState("networkidle");
      expect(errors, `${r.slug}: console errors on load`).toEqual([]);
      await r.then?.(page);
      const sw = await sidewaysScroll(page);
      expect(sw.scrollWidth, `${r.slug}: page width ${sw.scrollWidth} in a ${sw.clientWidth} px window`).toBeLessThanOrEqual(sw.clientWidth);
      await expectLayoutHolds(page, `${r.slug} at ${w} px`);
      await shot(page, screenshotPath(`console-width-${r.slug}-${w}-light`));
      await page.emulateMedia({ colorScheme: "dark" });
      await shot(page, screenshotPath(`console-width-${r.slug}-${w}-dark`));
    }
  });
}

test("the navigation: a sidebar at 1280 px, a Menu button that opens and closes it on a phone", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/ui/");
  const nav = page.getByRole("navigation", { name: "Console" });
  await expect(nav.getByRole("button", { name: "Menu" })).toBeHidden();
  await expect(nav.getByRole("link", { name: "Composer" })).toBeInViewport();
  await expect(nav.getByRole("group", { name: "Theme" })).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  const menu = nav.getByRole("button", { name: "Menu" });
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav.getByRole("link", { name: "Composer" })).toBeHidden();
  // Folded, the navigation is one bar: the page starts right under it.
  const bar = (await nav.boundingBox())!;
  expect(bar.height).toBeLessThan(64);
  await menu.click();
  await expect(menu).toHaveAttribute("aria-expanded", "true");
  await expect(nav.getByRole("group", { name: "Theme" })).toBeVisible();
  await shot(page, screenshotPath("console-width-menu-open-390"));
  // Escape folds it; choosing a page folds it too, on the page chosen.
  await page.keyboard.press("Escape");
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await menu.click();
  await nav.getByRole("link", { name: "Composer" }).click();
  await expect(page).toHaveURL(/\/ui\/compose$/);
  await expect(menu).toHaveAttribute("aria-expanded", "false");
  await expect(nav.getByRole("link", { name: "Composer" })).toBeHidden();
  await expect(page.getByRole("button", { name: "Send", exact: true })).toBeInViewport();
});
