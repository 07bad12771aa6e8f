// A bucket's subscriptions in the console (issue 49): "Try a webhook" on the bucket page creates a
// webhook subscription to the server's test receiver, appends, and shows the wake arriving with its
// signature verified, then deletes it; a pull-wake subscription made with curl is listed with the
// lease a worker took by claiming. At 390 and 1280 px nothing scrolls sideways and axe finds no
// serious or critical violation in the panel.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { axeViolations, expectLayoutHolds } from "./console/a11y.ts";
import { curlStatus, post, put, sh, shot, uniq } from "./console/helpers.ts";

test("Try a webhook: the wake arrives at the test receiver, signed, and the subscription shows its delivery", async ({ page, request }) => {
  const bucket = uniq("subs-hook");
  expect((await request.put(`/${bucket}`)).status()).toBe(201);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto(`/ui/b/${bucket}`);
  const panel = page.locator("section#subscriptions");
  await expect(panel.getByTestId("subscriptions-empty")).toBeVisible();

  await panel.getByRole("button", { name: "Try a webhook" }).click();
  const wakes = panel.getByTestId("received-wake");
  await expect(wakes).toHaveCount(1, { timeout: 10_000 });
  await expect(panel.getByTestId("webhook-try-status")).toContainText("The wake arrived.");
  await expect(wakes.first().getByTestId("wake-signature")).toHaveText("signature verified");
  await expect(wakes.first()).toContainText("generation 1");
  await expect(wakes.first()).toContainText("webhook-try up to");

  // The list shows the subscription, delivered, no error, its wake answered `done`.
  const sub = panel.getByTestId("subscription");
  await expect(sub).toHaveCount(1, { timeout: 10_000 });
  const id = (await sub.getAttribute("data-id"))!;
  expect(id).toMatch(/^console-try-/);
  await expect(sub).toContainText("webhook");
  await expect(sub).toContainText(`/__ursula/api/buckets/${bucket}/test-receiver`);
  await expect(sub.getByTestId("sub-delivery")).not.toHaveText("never", { timeout: 10_000 });
  await expect(sub.getByTestId("sub-error")).toHaveText("none");
  await expect(sub.getByTestId("sub-wake")).toContainText("none (generation 1)");

  // The server agrees: the reserved API shows the same subscription, delivered.
  const view = (await (await request.get(`/${bucket}/__ds/subscriptions/${id}`)).json()) as { delivery: { last_delivery_at: string | null }; streams: { path: string }[] };
  expect(view.delivery.last_delivery_at).not.toBeNull();
  expect(view.streams.map((s) => s.path)).toEqual(["webhook-try"]);

  // Another append, another wake (generation 2).
  await panel.getByRole("button", { name: "Append again" }).click();
  await expect(wakes).toHaveCount(2, { timeout: 10_000 });
  await expect(wakes.first()).toContainText("generation 2");
  await expect(wakes.first().getByTestId("wake-signature")).toHaveText("signature verified");

  await expectLayoutHolds(page, "bucket page with a webhook try, 1280 px");
  expect(await axeViolations(page, "section#subscriptions")).toEqual([]);
  await shot(page, screenshotPath("console-subscriptions-webhook-1280"));
  await page.setViewportSize({ width: 390, height: 844 });
  await expectLayoutHolds(page, "bucket page with a webhook try, 390 px");
  expect(await axeViolations(page, "section#subscriptions")).toEqual([]);
  await shot(page, screenshotPath("console-subscriptions-webhook-390"));

  await panel.getByRole("button", { name: "Delete the subscription" }).click();
  await expect(panel.getByTestId("webhook-try-status")).toHaveText("The subscription is deleted.");
  await expect(sub).toHaveCount(0, { timeout: 10_000 });
  expect((await request.get(`/${bucket}/__ds/subscriptions/${id}`)).status()).toBe(404);
});

test("a pull-wake subscription made with curl is listed with its lease after a worker's claim", async ({ page, request, baseURL }) => {
  const bucket = uniq("subs-pull");
  await put(request, `/${bucket}/wakes`);
  await put(request, `/${bucket}/jobs`);
  const created = sh(`curl -si -X PUT ${baseURL}/${bucket}/__ds/subscriptions/workers -H 'Content-Type: application/json' -d '{"type":"pull-wake","streams":["jobs"],"wake_stream":"wakes","lease_ttl_ms":600000}'`);
  expect(curlStatus(created)).toBe(201);
  expect((await post(request, `/${bucket}/jobs`, '[{"job":1}]')).status()).toBe(204);
  // The wake opens once the append is durable: claim until there is one.
  let claimed = "";
  await expect(async () => {
    claimed = sh(`curl -si -X POST ${baseURL}/${bucket}/__ds/subscriptions/workers/claim -H 'Content-Type: application/json' -d '{"worker":"worker-7"}'`);
    expect(curlStatus(claimed)).toBe(200);
  }).toPass({ timeout: 10_000 });
  const generation = (JSON.parse(claimed.slice(claimed.indexOf("{"))) as { generation: number }).generation;

  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
    await page.goto(`/ui/b/${bucket}`);
    const sub = page.locator("section#subscriptions").getByTestId("subscription");
    await expect(sub).toHaveCount(1);
    await expect(sub).toHaveAttribute("data-id", "workers");
    await expect(sub).toContainText("pull-wake");
    await expect(sub).toContainText("streams jobs");
    await expect(sub).toContainText("wake stream wakes");
    await expect(sub).toContainText("wake pending");
    await expect(sub.getByTestId("sub-wake")).toContainText(`generation ${generation}`);
    await expect(sub.getByTestId("sub-wake")).toContainText("pending since ");
    await expect(sub.getByTestId("sub-lease")).toContainText("worker-7 until ");
    await expect(sub.getByTestId("sub-lease")).toContainText("(in ");
    await expectLayoutHolds(page, `bucket page with a claimed pull-wake subscription, ${width} px`);
    expect(await axeViolations(page, "section#subscriptions")).toEqual([]);
    await shot(page, screenshotPath(`console-subscriptions-pull-${width}`));
  }
});
