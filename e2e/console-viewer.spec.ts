// The message viewer against the bytes the server holds: search by substring and by a JSON
// field (every match's offset is where that message starts in the server's NDJSON), seek by
// offset and by append time, and export a range as NDJSON (JSON streams) or raw bytes.
import { readFileSync } from "node:fs";
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { put, shotView, uniq } from "./console/helpers.ts";

const TYPES = ["order", "refund", "Order", "shipment"];

/** Each message's start offset and text, from the server's NDJSON (its stored bytes). */
function lines(ndjson: Buffer): { offset: number; text: string }[] {
  const out: { offset: number; text: string }[] = [];
  let at = 0;
  for (const line of ndjson.toString("utf8").split("\n").slice(0, -1)) {
    out.push({ offset: at, text: line });
    at += Buffer.byteLength(line) + 1;
  }
  return out;
}

/** The messages panel in view: the list is virtualized, so a full-page picture would show its rows only near the top. */
async function shotMessages(page: Page, name: string) {
  await page.locator("#panel-messages").evaluate((el) => el.scrollIntoView({ block: "start" }));
  await page.waitForTimeout(100);
  await shotView(page, screenshotPath(name));
}

async function downloadOf(page: Page, click: () => Promise<void>): Promise<Buffer> {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  return readFileSync((await download.path())!);
}

test("search, seek and export, checked against the bytes the server holds", async ({ page, request }) => {
  test.setTimeout(60_000);
  const bucket = uniq("view");
  const path = `/${bucket}/events`;
  await put(request, path);
  // Three appends of 1,000 messages each, far enough apart in time to seek between them.
  const times: number[] = [];
  for (let batch = 0; batch < 3; batch++) {
    if (batch > 0) {
      await new Promise((r) => setTimeout(r, 60));
      times.push(Date.now());
      await new Promise((r) => setTimeout(r, 60));
    }
    const body = Array.from({ length: 1000 }, (_, i) => ({ n: batch * 1000 + i, type: TYPES[(batch * 1000 + i) % TYPES.length], note: i % 250 === 0 ? "needle in batch " + batch : "hay" }));
    expect((await request.post(path, { headers: { "Content-Type": "application/json" }, data: JSON.stringify(body) })).status()).toBe(204);
  }
  const stored = Buffer.from(await (await request.get(`${path}?offset=-1&format=ndjson`)).body());
  const all = lines(stored);
  expect(all.length).toBe(3000);

  await page.goto(`/ui/s/${bucket}/events`);
  const list = page.getByRole("list", { name: "Messages" });
  await expect(list.locator("li").first()).toContainText('"n": 0');

  // Substring, ASCII case folded: "needle" is in 12 messages.
  const search = page.getByRole("region", { name: "Search messages" });
  await search.getByLabel("Contains").fill("NEEDLE");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/q=NEEDLE/);
  const hits = page.getByRole("list", { name: "Search matches" }).locator("li");
  const wantNeedle = all.filter((m) => m.text.toLowerCase().includes("needle")).map((m) => String(m.offset));
  await expect(hits).toHaveCount(wantNeedle.length);
  expect(await hits.evaluateAll((els) => els.map((e) => e.getAttribute("data-offset")))).toEqual(wantNeedle);
  await expect(page.getByTestId("search-status")).toContainText("12 matches");
  await expect(page.getByTestId("search-status")).toContainText("whole stream");
  // Matching case: none spelled NEEDLE.
  await search.getByRole("checkbox", { name: "Match case" }).check();
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId("search-status")).toContainText("0 matches");
  await search.getByRole("checkbox", { name: "Match case" }).uncheck();

  // A JSON field and its value: type = refund, exactly (not "Order" or "order" for "order").
  await search.getByLabel("Contains").fill("");
  await search.getByLabel("JSON field").fill("type");
  await search.getByLabel("equals").fill("refund");
  await search.getByRole("button", { name: "Search" }).click();
  await expect(page).toHaveURL(/field=type&value=refund/);
  // 750 refunds: a run stops at 100 and "Find more" goes on from where it stopped.
  await expect(hits).toHaveCount(100);
  await page.getByRole("button", { name: "Find more" }).click();
  await expect(hits).toHaveCount(200);
  const wantRefund = all.filter((m) => JSON.parse(m.text).type === "refund").map((m) => String(m.offset));
  expect(await hits.evaluateAll((els) => els.map((e) => e.getAttribute("data-offset")))).toEqual(wantRefund.slice(0, 200));
  await shotMessages(page, "console-viewer-search-1280");
  // A match opens the viewer at its message.
  await hits.nth(3).getByRole("button").click();
  await expect(list.locator("li").first()).toHaveAttribute("data-offset", wantRefund[3]!);
  await expect(page.getByTestId("message-detail")).toContainText('"type": "refund"');
  await search.getByRole("button", { name: "Clear" }).click();
  await expect(page.getByRole("list", { name: "Search matches" })).toHaveCount(0);

  // Seek by offset: the message that starts there, whichever token form is typed.
  const target = all[1234]!;
  await page.getByLabel("Go to offset").fill(String(target.offset));
  await page.getByRole("button", { name: "Go", exact: true }).click();
  await expect(list.locator("li").first()).toHaveAttribute("data-offset", String(target.offset));
  await expect(list.locator("li").first()).toContainText('"n": 1234');

  // Seek by append time: the first message appended at or after it starts the second batch.
  const local = (ms: number) => new Date(ms - new Date(ms).getTimezoneOffset() * 60_000).toISOString().slice(0, 23);
  await page.getByLabel("Go to append time").fill(local(times[0]!));
  await page.getByRole("button", { name: "Go to time" }).click();
  await expect(page).toHaveURL(new RegExp(`at=${times[0]}`));
  await expect(list.locator("li").first()).toHaveAttribute("data-offset", String(all[1000]!.offset));
  await expect(page.getByTestId("message-detail")).toContainText('"n": 1000');
  await page.getByLabel("Go to append time").fill(local(times[1]!));
  await page.getByRole("button", { name: "Go to time" }).click();
  await expect(list.locator("li").first()).toHaveAttribute("data-offset", String(all[2000]!.offset));
  await shotMessages(page, "console-viewer-seek-1280");
  await page.setViewportSize({ width: 1920, height: 1080 });
  await shotMessages(page, "console-viewer-seek-1920");
  await page.setViewportSize({ width: 1280, height: 720 });

  // Export: the whole stream as NDJSON is byte for byte what the server stores.
  await page.getByRole("button", { name: "Export…" }).click();
  const dialog = page.getByTestId("export-dialog");
  const whole = await downloadOf(page, () => dialog.getByRole("button", { name: "Download NDJSON" }).click());
  expect(whole.equals(stored)).toBe(true);
  await expect(dialog.getByTestId("export-done")).toContainText(".ndjson");
  // From the selected message (the second batch's first) to the tail: exactly that suffix.
  await dialog.getByRole("radio", { name: /From the selected message/ }).check();
  const suffix = await downloadOf(page, () => dialog.getByRole("button", { name: "Download NDJSON" }).click());
  expect(suffix.equals(stored.subarray(all[2000]!.offset))).toBe(true);
  await page.keyboard.press("Escape");
});

test("a byte stream exports its raw bytes", async ({ page, request }) => {
  const bucket = uniq("view");
  const path = `/${bucket}/blob`;
  await request.put(path, { headers: { "Content-Type": "application/octet-stream" } });
  const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
  await request.post(path, { headers: { "Content-Type": "application/octet-stream" }, data: bytes.subarray(0, 1000) });
  await request.post(path, { headers: { "Content-Type": "application/octet-stream" }, data: bytes.subarray(1000) });
  await page.goto(`/ui/s/${bucket}/blob`);
  await expect(page.getByRole("list", { name: "Messages" }).locator("li")).toHaveCount(2);
  await page.getByRole("button", { name: "Export…" }).click();
  const file = await downloadOf(page, () => page.getByTestId("export-dialog").getByRole("button", { name: "Download bytes" }).click());
  expect(file.equals(Buffer.from(await (await request.get(`${path}?offset=-1`)).body()))).toBe(true);
  expect(file.equals(bytes)).toBe(true);
});
