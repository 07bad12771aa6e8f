// The product's own words: the start page's first sentence says what ursa is, and every term
// the glossary defines is linked where the page first uses it (headings aside: they name, the
// text defines). A term's link opens its glossary entry, marked and in view, and its tooltip is
// the entry's first sentence.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";

/** Terms issue 45 names, with how the start page's text spells them. */
const TERMS: [id: string, spelled: RegExp][] = [
  ["stream-seq", /Stream-Seq/],
  ["prefix-count", /prefix[ -]count/i],
  ["n-plus-k", /n \+ k/],
  ["producer", /\bproducer/i],
  ["epoch", /\bepoch/i],
  ["fencing", /\bfenc/i],
  ["incarnation", /incarnation/i],
  ["snapshot", /\bsnapshot/i],
  ["retention", /\bretention\b/i],
  ["floor", /\bfloor\b/i],
  ["bootstrap", /\bbootstrap\b/i],
  ["tail", /\btail\b/i],
  ["offset", /\boffset/i],
];

/** For the first text in <main> (outside headings) that spells the term: the glossary link it sits in, if any. */
function firstUse(page: Page, spelled: RegExp) {
  return page.evaluate(
    ({ source, flags }) => {
      const re = new RegExp(source, flags);
      const main = document.querySelector("main")!;
      const walk = document.createTreeWalker(main, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const el = n.parentElement!;
        if (el.closest("h1, h2, h3") || el.closest("[hidden], details:not([open]) > :not(summary)")) continue;
        if (!re.test(n.textContent ?? "")) continue;
        const link = el.closest("a.term");
        return { text: (n.textContent ?? "").trim().slice(0, 60), href: link?.getAttribute("href") ?? null };
      }
      return null;
    },
    { source: spelled.source, flags: spelled.flags },
  );
}

test("the start page says first what ursa is, in plain words", async ({ page }) => {
  await page.goto("/ui/");
  const first = page.locator("main p").first();
  await expect(first).toHaveAttribute("data-testid", "what-ursa-is");
  await expect(first).toHaveText(/^ursa is an HTTP server of append-only streams that many writers and readers share\b/);
});

test("each term is linked to its glossary entry where the start page first uses it", async ({ page }) => {
  await page.goto("/ui/");
  await expect(page.getByRole("button", { name: "Create the demo bucket" })).toBeVisible();
  const found: Record<string, unknown> = {};
  for (const [id, spelled] of TERMS) found[id] = (await firstUse(page, spelled))?.href;
  expect(found).toEqual(Object.fromEntries(TERMS.map(([id]) => [id, `/ui/glossary#term-${id}`])));

  // Every term link on the page names an entry that exists.
  const hrefs = [...new Set(await page.locator("main a.term").evaluateAll((as) => as.map((a) => a.getAttribute("href")!)))];
  expect(hrefs.length).toBeGreaterThanOrEqual(TERMS.length);
  await page.goto("/ui/glossary");
  for (const href of hrefs) await expect(page.locator(`#${href.split("#")[1]} dfn`), href).toBeVisible();
});

test("a term's link opens its entry, marked and in view; its tooltip is the entry's first sentence", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/ui/");
  const floor = page.locator("main a.term", { hasText: /^floor$/ });
  await expect(floor).toHaveAttribute("title", "The first offset retention kept.");
  await floor.click();
  await expect(page).toHaveURL(/\/ui\/glossary#term-floor$/);
  const entry = page.locator("#term-floor");
  await expect(entry).toHaveClass(/current/);
  await expect(entry).toBeInViewport();
  await expect(entry.locator("dd")).toContainText("A read from below the floor answers 410 Gone.");
  await page.screenshot({ path: screenshotPath("console-glossary-floor-390") });
  // A "see also" link moves to its entry on the same page.
  await page.goto("/ui/glossary#term-stream-seq");
  await page.locator("#term-stream-seq").getByRole("link", { name: "prefix count" }).click();
  await expect(page.locator("#term-prefix-count")).toHaveClass(/current/);
  await expect(page.locator("#term-prefix-count")).toBeInViewport();
  await expect(page.locator("#term-stream-seq")).not.toHaveClass(/current/);
});
