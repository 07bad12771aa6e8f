// Small things a first visit trips on: the composer's default target does not exist yet, and
// saying so costs no 404 in the console; the create dialog says nothing is wrong before anything
// is typed, shows the bucket whose page it was opened on, and says what is wrong once a field
// was left or on Create.
import { test, expect } from "./fixtures.ts";
import { put, uniq } from "./console/helpers.ts";

test("the composer's default target, not there yet: said on the page, not as a console error", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  await page.goto("/ui/compose");
  const target = await page.getByLabel("Target path").inputValue();
  const status = page.getByTestId("target-status");
  await expect(status).toHaveAttribute("data-exists", "false");
  await expect(status).toContainText(`No stream at ${target} yet`);
  await page.waitForLoadState("networkidle");
  expect(errors).toEqual([]);

  // A bucket that exists, a stream that does not: the same.
  const bucket = uniq("edges");
  await put(page.request, `/${bucket}/there`);
  await page.getByLabel("Target path").fill(`/${bucket}/not-there`);
  await expect(status).toContainText(`No stream at /${bucket}/not-there yet`);
  // A name that only starts like an existing one is not it.
  await page.getByLabel("Target path").fill(`/${bucket}/the`);
  await expect(status).toHaveAttribute("data-exists", "false");
  await page.getByLabel("Target path").fill(`/${bucket}/there`);
  await expect(status).toHaveAttribute("data-exists", "true");
  await page.waitForLoadState("networkidle");
  expect(errors).toEqual([]);
});

test("the create dialog: its bucket prefilled on a bucket's page, and no complaint before input", async ({ page, request }) => {
  const bucket = uniq("edges");
  await put(request, `/${bucket}/existing`);
  await page.goto(`/ui/b/${bucket}`);
  await page.getByRole("button", { name: "Create stream" }).click();
  const dialog = page.getByTestId("create-dialog");
  await expect(dialog.getByLabel("Bucket")).toHaveValue(bucket);
  await expect(dialog.getByLabel("Stream ID")).toBeFocused();
  await expect(dialog.getByTestId("create-problem")).toHaveCount(0);
  await expect(dialog.getByTestId("create-request-line")).toHaveText(`PUT /${bucket}/(stream ID)`);
  await expect(dialog).not.toContainText("choose a bucket");

  // Typed, then left: now it says what is wrong; corrected, it stops.
  await dialog.getByLabel("Stream ID").fill("a/b");
  await expect(dialog.getByTestId("create-problem")).toHaveCount(0);
  await dialog.getByLabel("Stream ID").press("Tab");
  await expect(dialog.getByTestId("create-problem")).toHaveText("A stream ID may not contain / or ..");
  await dialog.getByLabel("Stream ID").fill("fresh");
  await expect(dialog.getByTestId("create-problem")).toHaveCount(0);
  await expect(dialog.getByTestId("create-request-line")).toHaveText(`PUT /${bucket}/fresh`);
  await dialog.getByRole("button", { name: "Create", exact: true }).click();
  await expect(dialog.getByTestId("action-result")).toHaveAttribute("data-status", "201");
  expect((await request.head(`/${bucket}/fresh`)).status()).toBe(200);
});

test("the create dialog from the bucket list: empty and quiet until Create, which then says why not", async ({ page }) => {
  await page.goto("/ui/buckets");
  await page.getByRole("button", { name: "Create stream" }).click();
  const dialog = page.getByTestId("create-dialog");
  await expect(dialog.getByLabel("Bucket")).toHaveValue("");
  await expect(dialog.getByLabel("Bucket")).toBeFocused();
  await expect(dialog.getByTestId("create-problem")).toHaveCount(0);
  await expect(dialog.getByTestId("create-request-line")).toHaveText("PUT /(bucket)/(stream ID)");
  await dialog.getByRole("button", { name: "Create", exact: true }).click();
  await expect(dialog.getByTestId("create-problem")).toContainText("A bucket ID is 4–64 characters");
  await expect(dialog.getByTestId("action-result")).toHaveCount(0);
});
