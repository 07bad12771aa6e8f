// Accessibility and layout on every page: an axe-core scan (0 serious or critical violations) of
// each page at 1280 px and on a 390 px phone in the light theme, with dialogs open too (and the
// phone's navigation menu open), and of the pages that use every colour token (chips, notes,
// causes, the swimlane, the snapshot and retention panel) in the dark one at both widths; and at
// 1024, 1280, 1920 and 2560 px, no page scrolls sideways, no panel leaves the window, and no
// number marked unbreakable (offsets, Stream-Seq, the race lab's time axis) wraps (390 px:
// console-widths.spec.ts). The compaction lab, run to each verdict, is checked in
// console-compaction.spec.ts, where those runs happen anyway.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { axeViolations, expectLayoutHolds, type AxeFinding } from "./console/a11y.ts";
import { post, put, shot, uniq } from "./console/helpers.ts";

const pad = (n: number) => String(n).padStart(20, "0");

/** A bucket with a JSON stream that has messages, a producer and a Stream-Seq, and a fork. */
async function seed(request: import("@playwright/test").APIRequestContext) {
  const bucket = uniq("a11y");
  const path = `/${bucket}/orders`;
  await put(request, path);
  await post(request, path, JSON.stringify(Array.from({ length: 40 }, (_, i) => ({ order: i, total: i * 3.5 }))), { "Stream-Seq": pad(0) });
  await post(request, path, '[{"order":"p"}]', { "Producer-Id": "checkout", "Producer-Epoch": "2", "Producer-Seq": "0" });
  await put(request, `/${bucket}/orders-replay`, { "Stream-Forked-From": path });
  await put(request, `/${bucket}/closed`, { "Stream-Closed": "true" });
  // A compacted stream: attributes, a snapshot that keeps the count, and the floor moved to it.
  const compacted = `/${bucket}/compacted`;
  await put(request, compacted, { "Stream-Attrs": JSON.stringify({ title: "Compacted orders", metadata: { owner: "ana" } }) });
  await post(request, compacted, JSON.stringify(Array.from({ length: 6 }, (_, i) => ({ order: i }))));
  const floor = (await request.head(compacted)).headers()["stream-next-offset"]!;
  await post(request, compacted, '[{"order":6}]');
  expect((await request.put(`${compacted}/snapshot/${floor}`, { headers: { "Content-Type": "application/json" }, data: '{"count":6,"state":{}}' })).status()).toBe(204);
  expect((await request.put(`${compacted}/retention/${floor}`)).status()).toBe(204);
  return { bucket, path };
}

interface Visit {
  name: string;
  url: string;
  /** Scan only this part: the rest is a page scanned on its own already. */
  part?: string;
  /** Scanned with a dialog open over it instead (see "… with a 409"); checked for layout only. */
  layoutOnly?: boolean;
  /** Only on the phone, where it exists. */
  phoneOnly?: boolean;
  /** Bring the page to the state worth scanning (a lab run, a dialog open…). */
  ready?: (page: Page) => Promise<void>;
}

function visits(bucket: string, path: string): Visit[] {
  return [
    { name: "start", url: "/ui/" },
    { name: "glossary", url: "/ui/glossary#term-prefix-count" },
    {
      // Scanned on the phone only: at 1280 px the menu is the sidebar, scanned on every page.
      name: "navigation menu open",
      url: "/ui/",
      phoneOnly: true,
      ready: async (p) => {
        await p.getByRole("button", { name: "Menu" }).click();
        await expect(p.getByRole("group", { name: "Theme" })).toBeVisible();
      },
    },
    { name: "buckets", url: "/ui/buckets" },
    {
      // The page behind a modal is scanned with it: the list, an open row menu, the create dialog.
      name: "bucket, row menu and create dialog",
      url: `/ui/b/${bucket}?sort=tail`,
      ready: async (p) => {
        await expect(p.getByRole("table", { name: "Streams" }).locator("tbody tr")).toHaveCount(4);
        await p.locator('tr[data-stream="orders"] summary').click();
        await p.getByRole("button", { name: "Create stream" }).click();
        await p.getByTestId("create-dialog").getByRole("checkbox", { name: /Stream-Seq/ }).check();
      },
    },
    {
      name: "stream",
      url: `/ui/s/${bucket}/orders`,
      layoutOnly: true,
      ready: async (p) => {
        await expect(p.getByRole("list", { name: "Messages" }).locator("li").first()).toBeVisible();
        await expect(p.getByTestId("fork-tree")).toBeVisible();
      },
    },
    {
      name: "stream, searching",
      url: `/ui/s/${bucket}/orders?q=order&field=total&value=7`,
      part: "#panel-messages",
      ready: (p) => expect(p.getByRole("list", { name: "Search matches" }).locator("li")).toHaveCount(1),
    },
    {
      name: "stream, delete dialog",
      url: `/ui/s/${bucket}/orders`,
      part: "dialog[open]",
      ready: async (p) => {
        await p.getByRole("button", { name: "Delete…" }).click();
        await expect(p.getByTestId("delete-dialog")).toBeVisible();
      },
    },
    {
      name: "stream, append dialog with a 409",
      url: `/ui/s/${bucket}/orders`,
      ready: async (p) => {
        await expect(p.getByRole("list", { name: "Messages" }).locator("li").first()).toBeVisible();
        await expect(p.getByTestId("fork-tree")).toBeVisible();
        await p.getByRole("button", { name: "Append…" }).click();
        const d = p.getByTestId("append-dialog");
        await d.getByLabel("Stream-Seq value").fill(pad(0));
        await d.getByRole("button", { name: "Append", exact: true }).click();
        await expect(d.getByTestId("action-result")).toHaveAttribute("data-status", "409");
      },
    },
    {
      name: "stream, export dialog",
      url: `/ui/s/${bucket}/orders`,
      part: "dialog[open]",
      ready: async (p) => {
        await p.getByRole("button", { name: "Export…" }).click();
        await expect(p.getByTestId("export-dialog")).toBeVisible();
      },
    },
    { name: "stream, live tail", url: `/ui/s/${bucket}/orders?tab=tail`, part: "#panel-tail" },
    {
      name: "stream, compacted",
      url: `/ui/s/${bucket}/compacted`,
      ready: (p) => expect(p.locator('[data-field="snapshot_size"]')).toHaveText("22 bytes"),
    },
    ...(["Publish snapshot…", "Edit attributes…"] as const).map(
      (button): Visit => ({
        name: `stream, ${button.replace("…", "").toLowerCase()} dialog`,
        url: `/ui/s/${bucket}/compacted`,
        part: "dialog[open]",
        ready: async (p) => {
          await p.getByRole("button", { name: button }).click();
          await expect(p.locator("dialog[open] form")).toBeVisible();
        },
      }),
    ),
    {
      name: "stream, retention dialog",
      url: `/ui/s/${bucket}/orders`,
      part: "dialog[open]",
      ready: async (p) => {
        await p.getByRole("button", { name: "Publish snapshot…" }).click();
        await p.getByTestId("snapshot-dialog").getByRole("button", { name: "Publish snapshot" }).click();
        await expect(p.getByTestId("snapshot-dialog").getByTestId("action-result")).toHaveAttribute("data-status", "204");
        await p.keyboard.press("Escape");
        await p.getByRole("button", { name: "Advance retention…" }).click();
        await expect(p.getByTestId("retention-drop")).toBeVisible();
      },
    },
    { name: "fork", url: `/ui/s/${bucket}/orders-replay`, part: "#forks", ready: (p) => expect(p.getByTestId("fork-tree")).toBeVisible() },
    {
      name: "composer with a 409",
      url: `/ui/compose?target=${encodeURIComponent(path)}`,
      ready: async (p) => {
        await p.getByRole("checkbox", { name: /^Stream-Seq/ }).check();
        await p.getByRole("button", { name: "Send" }).click();
        await expect(p.getByTestId("response-status")).toHaveText("409");
      },
    },
    {
      name: "composer, an append-batch",
      url: `/ui/compose?target=${encodeURIComponent(path)}&endpoint=append-batch`,
      ready: async (p) => {
        await p.getByRole("button", { name: "Send" }).click();
        await expect(p.getByTestId("batch-acks").locator("tbody tr")).toHaveCount(2);
      },
    },
    {
      name: "composer, a bootstrap",
      url: `/ui/compose?target=${encodeURIComponent(`/${bucket}/compacted`)}&endpoint=bootstrap`,
      part: "#response",
      ready: async (p) => {
        await p.getByRole("button", { name: "Send" }).click();
        await expect(p.getByTestId("bootstrap-parts")).toBeVisible();
      },
    },
    {
      name: "timeline, an attempt open",
      url: "/ui/timeline",
      ready: async (p) => {
        await p.locator("li.attempt button.attempt-line").first().click();
        await expect(p.locator(".attempt-detail")).toBeVisible();
      },
    },
    {
      name: "race lab, four writers run",
      url: "/ui/lab/race",
      ready: async (p) => {
        await p.getByLabel("writers", { exact: true }).selectOption("4");
        await p.getByRole("button", { name: "Run continuously" }).click();
        await expect(p.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 25_000 });
      },
    },
    {
      name: "outbox lab, run",
      url: "/ui/lab/outbox",
      ready: async (p) => {
        await p.getByRole("button", { name: "Run all" }).click();
        await expect(p.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 20_000 });
      },
    },
    {
      name: "incarnation lab, run",
      url: "/ui/lab/incarnation",
      ready: async (p) => {
        await p.getByRole("button", { name: "Run all" }).click();
        await expect(p.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 20_000 });
      },
    },
    { name: "compaction lab", url: "/ui/lab/compaction", ready: (p) => expect(p.getByRole("heading", { name: "Compaction lab" })).toBeVisible() },
    { name: "server", url: "/ui/server", ready: (p) => expect(p.locator('[data-field="version"]')).toBeVisible() },
    { name: "not found", url: "/ui/nothing/here" },
  ];
}

for (const [width, height] of [
  [1280, 800],
  [390, 844],
] as const) {
  test(`axe at ${width} px: no serious or critical violation on any page, light and dark`, async ({ page, request }) => {
    test.setTimeout(300_000);
    await page.setViewportSize({ width, height });
    const { bucket, path } = await seed(request);
    const scanned: string[] = [];
    // Every page is scanned before anything is asserted, so one run lists every violation.
    const found: { page: string; violations: AxeFinding[] }[] = [];
    const scan = async (name: string, part?: string) => {
      const violations = await axeViolations(page, part);
      if (violations.length) found.push({ page: name, violations });
      scanned.push(name);
    };
    const mine = visits(bucket, path).filter((x) => !x.layoutOnly && (width < 900 || !x.phoneOnly));
    for (const v of mine) {
      await page.goto(v.url);
      await v.ready?.(page);
      await scan(`${v.name} (light)`, v.part);
    }
    await page.emulateMedia({ colorScheme: "dark" });
    for (const v of mine.filter((x) => ["start", "glossary", "navigation menu open", "stream, append dialog with a 409", "composer with a 409", "race lab, four writers run", "stream, compacted"].includes(x.name))) {
      await page.goto(v.url);
      await v.ready?.(page);
      await scan(`${v.name} (dark)`, v.part);
    }
    expect(found).toEqual([]);
    console.log(`axe at ${width} px: 0 serious or critical violations on ${scanned.length} scans: ${scanned.join("; ")}`);
  });
}

test("no layout breaks from 1024 to 2560 px", async ({ page, request }) => {
  test.setTimeout(200_000);
  const { bucket, path } = await seed(request);
  const pages = visits(bucket, path).filter((v) => ["start", "bucket, row menu and create dialog", "stream", "stream, compacted", "composer with a 409", "composer, an append-batch", "race lab, four writers run", "outbox lab, run", "server"].includes(v.name));
  for (const v of pages) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(v.url);
    await v.ready?.(page);
    for (const width of [1024, 1280, 1920, 2560]) {
      await page.setViewportSize({ width, height: 900 });
      await expectLayoutHolds(page, `${v.name} at ${width} px`);
    }
    if (v.name === "race lab, four writers run") {
      await page.setViewportSize({ width: 1280, height: 900 });
      await shot(page, screenshotPath("console-layout-race-4-writers-1280"));
      await page.setViewportSize({ width: 1024, height: 900 });
      await shot(page, screenshotPath("console-layout-race-4-writers-1024"));
    }
    if (v.name === "stream") {
      await page.setViewportSize({ width: 2560, height: 1200 });
      await shot(page, screenshotPath("console-layout-stream-2560"));
      await page.setViewportSize({ width: 1024, height: 900 });
      await shot(page, screenshotPath("console-layout-stream-1024"));
    }
  }
});
