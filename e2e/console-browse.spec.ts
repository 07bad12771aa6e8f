// Browsing buckets and streams: counts, prefix filter, pagination, and a linked URL that
// restores the same view (filter and selection live in the URL).
import { test, expect, screenshotPath } from "./fixtures.ts";
import { put, uniq, shot } from "./console/helpers.ts";

test("GET / redirects to the console at /ui/", async ({ request }) => {
  const res = await request.get("/", { maxRedirects: 0 });
  expect([301, 302, 303, 307, 308]).toContain(res.status());
  expect(res.headers()["location"]).toMatch(/\/ui\/$/);
});

test("browse buckets and streams, filter by prefix, page, and open a linked view", async ({ page, request }) => {
  const bucket = uniq("browse");
  // 130 streams: more than one page of 100.
  const names = Array.from({ length: 130 }, (_, i) => `${i < 5 ? "orders" : "events"}-${String(i).padStart(3, "0")}`);
  for (const n of names) await put(request, `/${bucket}/${n}`);
  await request.post(`/${bucket}/orders-000`, { headers: { "Content-Type": "application/json" }, data: "[1,2,3]" });

  // The console opens on its start page; the buckets are one click away.
  await page.goto("/");
  await expect(page).toHaveURL(/\/ui\/$/);
  await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Browse" }).click();
  await expect(page).toHaveURL(/\/ui\/buckets$/);
  const row = page.getByRole("row", { name: new RegExp(bucket) });
  await expect(row).toContainText("130");
  await row.getByRole("link", { name: bucket }).click();

  await expect(page).toHaveURL(new RegExp(`/ui/b/${bucket}$`));
  await expect(page.getByTestId("stream-total")).toHaveText("130 streams");
  const streams = page.getByRole("table", { name: "Streams" });
  await expect(streams.locator("tbody tr")).toHaveCount(100);
  await expect(streams.locator("tbody tr").first()).toContainText("events-005");

  // Second page through the cursor, and back.
  await page.getByRole("button", { name: "Next →" }).click();
  await expect(page).toHaveURL(/after=events-104/);
  await expect(streams.locator("tbody tr")).toHaveCount(30);
  await expect(page.getByText("30 shown of 130")).toBeVisible();
  await page.getByRole("button", { name: "← Previous" }).click();
  await expect(streams.locator("tbody tr")).toHaveCount(100);

  // Prefix filter goes into the URL and survives a reload.
  await page.getByLabel("Stream prefix").fill("orders");
  await expect(page).toHaveURL(/prefix=orders/);
  await expect(page.getByTestId("stream-total")).toHaveText("5 streams starting with “orders”");
  await page.reload();
  await expect(page.getByLabel("Stream prefix")).toHaveValue("orders");
  await expect(streams.locator("tbody tr")).toHaveCount(5);
  await expect(streams.getByRole("row", { name: /orders-000/ })).toContainText("application/json");

  // A linked URL in a fresh tab shows the same selection.
  const linked = await page.context().newPage();
  await linked.goto(`/ui/b/${bucket}?prefix=orders-00`);
  await expect(linked.getByTestId("stream-total")).toHaveText("5 streams starting with “orders-00”");
  await linked.getByRole("link", { name: "orders-000" }).click();
  await expect(linked).toHaveURL(new RegExp(`/ui/s/${bucket}/orders-000$`));
  await expect(linked.locator('[data-field="message_count"]')).toHaveText("3");
  // The stream page is itself a link: reload keeps it.
  await linked.reload();
  await expect(linked.getByRole("heading", { name: "orders-000" })).toBeVisible();
  await linked.goBack();
  await expect(linked).toHaveURL(/prefix=orders-00/);

  await shot(page, screenshotPath("console-browse"));
});
