// Checks every console spec can run on the page it is on: an axe-core scan that fails on any
// serious or critical violation, and layout checks that fail on horizontal overflow or on a
// value that wrapped mid-number.
import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Serious and critical axe violations on the page as it is now (WCAG 2.x A and AA rules, best
 * practices); with `include`, only in that part of it (a dialog, a panel whose page was scanned).
 */
export async function axeViolations(page: Page, include?: string): Promise<AxeFinding[]> {
  const builder = new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]);
  const r = await (include ? builder.include(include) : builder).analyze();
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(" ")) }));
}

/** Nothing wider than the viewport, and no value marked as unbreakable broken over two lines. */
export async function expectLayoutHolds(page: Page, label: string): Promise<void> {
  const problems = await page.evaluate(() => {
    const out: string[] = [];
    const doc = document.scrollingElement!;
    if (doc.scrollWidth > window.innerWidth + 1) out.push(`page scrolls sideways: ${doc.scrollWidth} > ${window.innerWidth}`);
    for (const el of document.querySelectorAll<HTMLElement>(".nowrap, .seq, .swim-axis, .chip")) {
      if (el.offsetParent === null) continue;
      const lines = new Set(Array.from(el.getClientRects(), (r) => Math.round(r.top)));
      if (lines.size > 1) out.push(`wrapped: ${el.className} “${(el.textContent ?? "").slice(0, 40)}”`);
    }
    // Lines that hold numbers may not hide any of them behind an ellipsis either.
    for (const el of document.querySelectorAll<HTMLElement>(".swim-line, .swim-title, .swim-axis")) {
      if (el.offsetParent !== null && el.scrollWidth > el.clientWidth + 1) out.push(`clipped: ${el.className} “${(el.textContent ?? "").slice(0, 40)}”`);
    }
    for (const el of document.querySelectorAll<HTMLElement>("main .panel, main .page-head")) {
      const r = el.getBoundingClientRect();
      if (r.right > window.innerWidth + 1) out.push(`overflows the window: ${el.className} right at ${Math.round(r.right)}`);
    }
    return out.slice(0, 10);
  });
  expect({ page: label, problems }).toEqual({ page: label, problems: [] });
}
