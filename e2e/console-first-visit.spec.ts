// A first visit, on a server of its own so it starts empty: the start page explains the three
// guards with a link to each lab; one click makes the demo bucket (checked stream by stream
// against the HTTP API, and every request of it in the timeline); then each lab, reached from
// the start page, runs to its verdict.
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { startUrsa, type UrsaProcess } from "./server-process.ts";
import { shot } from "./console/helpers.ts";

let own: UrsaProcess;
test.beforeAll(async () => {
  own = await startUrsa();
});
test.afterAll(async () => {
  await own.stop();
  own.cleanup();
});

const pad = (n: number) => String(n).padStart(20, "0");
const api = async <T,>(path: string): Promise<T> => (await (await fetch(`${own.url}/__ursula/api${path}`)).json()) as T;

async function shots(page: Page, name: string) {
  await shot(page, screenshotPath(`${name}-1280`));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await shot(page, screenshotPath(`${name}-1920`));
  await page.setViewportSize({ width: 1280, height: 800 });
}

test("first visit: start page, the demo bucket, then every lab to its verdict", async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`${own.url}/ui/`);

  // What each guard protects against, a few sentences each, one lab link each.
  for (const [heading, lab] of [
    ["Stream-Seq", "Race lab"],
    ["Producer-Id · Epoch · Seq", "Outbox lab"],
    ["Stream-Incarnation", "Incarnation lab"],
  ] as const) {
    const card = page.getByRole("region", { name: heading });
    await expect(card).toContainText("Protects against");
    await expect(card.getByRole("link", { name: new RegExp(`^${lab}`) })).toBeVisible();
    // Ursula's words one click away.
    await card.getByText("The rule, in Ursula's words").click();
    await expect(card.locator("blockquote").first()).toBeVisible();
  }
  await expect(page.getByRole("heading", { name: "This server is empty" })).toBeVisible();
  await shots(page, "console-first-visit-start");

  await page.getByRole("button", { name: "Create the demo bucket" }).click();
  await expect(page.getByTestId("demo-done")).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("server-counts")).toHaveText(/4 streams in 1 bucket/);

  // The demo bucket, stream by stream, as the HTTP API reports it.
  type Detail = { last_stream_seq: string | null; message_count: number; producers: { producer_id: string; epoch: number; last_seq: number }[]; incarnation: string; fork: { source: string } | null };
  const log = await api<Detail>("/streams/demo/prefix-count-log");
  expect([log.last_stream_seq, log.message_count]).toEqual([pad(3), 4]);
  const outbox = await api<Detail>("/streams/demo/outbox");
  expect(outbox.producers).toEqual([expect.objectContaining({ producer_id: "outbox-publisher", epoch: 1, last_seq: 0 })]);
  expect(outbox.last_stream_seq).toBe(pad(4));
  const facts = (await (await fetch(`${own.url}/demo/outbox?offset=-1`)).json()) as { fact: number; epoch: number }[];
  expect(facts.map((f) => [f.fact, f.epoch])).toEqual([
    [1, 0],
    [2, 0],
    [3, 0],
    [4, 1],
  ]);
  const recreated = (await (await fetch(`${own.url}/demo/recreated?offset=-1`)).json()) as { life: number }[];
  expect(recreated).toEqual([{ life: 2 }]);
  expect((await api<Detail>("/streams/demo/prefix-count-fork")).fork!.source).toBe("demo/prefix-count-log");

  // Every demo request is in the timeline, refusals included, each with what it means.
  await page.getByRole("link", { name: "the requests in the timeline" }).click();
  await expect(page.getByRole("list", { name: "Attempts" }).locator("li.attempt")).toHaveCount(23);
  for (const [chip, n] of [
    ["409 seq", 3],
    ["duplicate", 1],
    ["403 stale epoch", 1],
    ["412", 1],
  ] as const)
    await expect(page.getByRole("button", { name: new RegExp(`^${chip} ${n}$`) })).toBeVisible();
  await page.getByRole("button", { name: /^412 1$/ }).click();
  await page.locator("li.attempt button.attempt-line").first().click();
  const cause = page.getByTestId("cause");
  await expect(cause).toContainText("The stream was deleted and recreated");
  await expect(cause.getByTestId("sent-value")).not.toHaveText(await cause.getByTestId("stored-value").textContent() ?? "");
  await shots(page, "console-first-visit-timeline");

  // A demo stream shows its guards: the log's last Stream-Seq, the outbox's producer at epoch 1.
  await page.goto(`${own.url}/ui/s/demo/outbox`);
  await expect(page.locator('[data-field="last_stream_seq"]')).toHaveText(pad(4));
  await expect(page.locator('[data-producer="outbox-publisher"] [data-col="epoch"]')).toHaveText("1");

  // Each lab from the start page's link, run to its verdict.
  await page.goto(`${own.url}/ui/`);
  await page.getByRole("link", { name: /^Race lab: writers racing/ }).click();
  await expect(page).toHaveURL(/\/ui\/lab\/race$/);
  await page.getByRole("button", { name: "Run continuously" }).click();
  await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 30_000 });
  for (const w of ["A", "B"]) await expect(page.getByTestId(`phase-${w}`)).toHaveText("done");
  await shots(page, "console-first-visit-race");

  await page.goto(`${own.url}/ui/`);
  await page.getByRole("link", { name: /^Outbox lab: a takeover/ }).click();
  // Every step is named before it runs.
  await expect(page.locator("li.script-step.pending strong")).toHaveCount(12);
  await expect(page.locator("li.script-step.pending").nth(6)).toContainText("New owner republishes fact 2 (epoch 1, Producer-Seq 0, Stream-Seq 2): expect 409, already published");
  await expect(page.getByText("next step")).toHaveCount(0);
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.locator("li.script-step.done")).toHaveCount(12, { timeout: 20_000 });
  await expect(page.locator('li.script-step.done[data-ok="false"]')).toHaveCount(0);
  await expect(page.locator('li.script-step[data-step="11"]')).toContainText("Facts 1, 2, 3, 4, 5, 6: none lost, none twice.");
  await shots(page, "console-first-visit-outbox");

  await page.goto(`${own.url}/ui/`);
  await page.getByRole("link", { name: /^Incarnation lab: recreate/ }).click();
  await expect(page.locator("li.script-step.pending strong")).toHaveCount(12);
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.locator("li.script-step.done")).toHaveCount(12, { timeout: 20_000 });
  await expect(page.locator('li.script-step.done[data-ok="false"]')).toHaveCount(0);
  await shots(page, "console-first-visit-incarnation");
});
