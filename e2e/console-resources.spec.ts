// Ursula's resource model from the console, against the compiled binary: attributes, a snapshot
// of the current state and a retention floor set from the stream page (each field then compared
// with GET …/attrs and HEAD's Stream-Snapshot-* and Stream-Retained-Offset), and an append-batch
// built from frames in the composer, whose acks are checked against the bytes the server stored
// and whose copy-as-curl appends the same frames again.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { curlStatus, post, put, sh, shot, uniq } from "./console/helpers.ts";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });
const field = (page: import("@playwright/test").Page, name: string) => page.locator(`[data-field="${name}"]`);

test("stream page: attributes, a snapshot and retention from the UI, as the HTTP API reports them", async ({ page, request }) => {
  test.setTimeout(60_000);
  const bucket = uniq("res");
  const path = `/${bucket}/orders`;
  await put(request, path);
  expect((await post(request, path, '[{"order":1},{"order":2}]')).status()).toBe(204);
  expect((await post(request, path, '[{"order":3}]')).status()).toBe(204);
  await page.goto(`/ui/s/${bucket}/orders`);
  await expect(field(page, "snapshot_offset")).toHaveText("none");
  await expect(field(page, "retained_offset")).toHaveText("0000000000000000_0000000000000000");
  await expect(page.getByRole("button", { name: "Advance retention…" })).toBeDisabled();

  // Attributes: saved from the dialog, then read back by the page and by GET …/attrs.
  await page.getByRole("button", { name: "Edit attributes…" }).click();
  const attrs = page.getByTestId("attrs-dialog");
  await attrs.getByLabel("Title").fill("Orders of the day");
  await attrs.getByLabel(/^Metadata/).fill('{"tier": 2, "owner": "ana"}');
  await attrs.getByRole("button", { name: "Save attributes" }).click();
  await expect(attrs.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  expect(await (await request.get(`${path}/attrs`)).json()).toEqual({ title: "Orders of the day", metadata: { owner: "ana", tier: 2 } });
  await page.keyboard.press("Escape");
  await expect(field(page, "attrs_title")).toHaveText("Orders of the day");
  await expect(field(page, "attrs_metadata")).toHaveAttribute("data-json", '{"owner":"ana","tier":2}');
  await expect(page.getByTestId("stream-title")).toContainText("Orders of the day");

  // A snapshot of the state now: at the tail, keeping the event count (3 messages).
  await page.getByRole("button", { name: "Publish snapshot…" }).click();
  const snap = page.getByTestId("snapshot-dialog");
  const body = snap.getByRole("textbox", { name: "Body" });
  await expect(body).toHaveValue(/"count": 3/);
  await body.fill('{"count":3,"state":{"orders":3}}');
  await snap.getByRole("button", { name: "Publish snapshot" }).click();
  await expect(snap.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  await page.keyboard.press("Escape");
  let head = (await request.head(path)).headers();
  await expect(field(page, "snapshot_offset")).toHaveText(head["stream-snapshot-offset"]!);
  expect(head["stream-snapshot-offset"]).toBe(head["stream-next-offset"]);
  await expect(field(page, "snapshot_digest")).toHaveText(head["stream-snapshot-digest"]!);
  await expect(field(page, "snapshot_type")).toHaveText("application/json");
  await expect(field(page, "snapshot_size")).toHaveText(`${'{"count":3,"state":{"orders":3}}'.length} bytes`);
  const tail = Number(head["stream-next-offset"]!.split("_")[1]);
  await expect(page.getByTestId("snapshot-mark")).toHaveText(`at byte ${tail} (the tail)`);
  const snapshotRead = await request.get(`${path}/snapshot/${head["stream-snapshot-offset"]}`);
  expect(await snapshotRead.text()).toBe('{"count":3,"state":{"orders":3}}');

  // An append after it, then retention up to the snapshot, behind a confirmation.
  expect((await post(request, path, '[{"order":4}]')).status()).toBe(204);
  await page.getByRole("button", { name: "Advance retention…" }).click();
  const retention = page.getByTestId("retention-dialog");
  await expect(retention).toContainText("410 STREAM_GONE");
  await expect(retention.getByTestId("retention-drop")).toContainText(`(${tail} bytes) become unreadable`);
  await retention.getByRole("button", { name: "Advance retention" }).click();
  await expect(retention.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  await page.keyboard.press("Escape");
  head = (await request.head(path)).headers();
  expect(head["stream-retained-offset"]).toBe(head["stream-snapshot-offset"]);
  await expect(field(page, "retained_offset")).toHaveText(head["stream-retained-offset"]!);
  expect((await request.get(`${path}?offset=-1`)).status()).toBe(410);
  await expect(page.getByTestId("readable-range")).toContainText(`retained from ${tail}; below it, 410`);
  await expect(page.getByRole("button", { name: "Advance retention…" })).toBeDisabled();
  // The viewer starts at the floor: the one message after it.
  await expect(page.getByRole("list", { name: "Messages" }).locator("li")).toHaveCount(1);
  // The attributes were not touched by any of it.
  await expect(field(page, "attrs_title")).toHaveText("Orders of the day");
  await shot(page, screenshotPath("console-stream-resources-1280"));
  await page.setViewportSize({ width: 1920, height: 1000 });
  await shot(page, screenshotPath("console-stream-resources-1920"));

  // Each went through the exchange client: in the timeline, with a copy-as-curl that works.
  await page.goto("/ui/timeline");
  const retained = page.locator("li.attempt", { hasText: `PUT${path}/retention/` });
  await expect(retained).toHaveCount(1);
  await retained.locator("button.attempt-line").click();
  await page.locator(".attempt-detail").getByRole("button", { name: "Copy as curl" }).click();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`-X PUT '${new URL(page.url()).origin}${path}/retention/${head["stream-retained-offset"]}'`);
  // Run again: the floor is there already, a no-op 204.
  expect(curlStatus(sh(curl!))).toBe(204);
});

test("composer: an append-batch built from frames, each ack where the server stored the frame", async ({ page, request }) => {
  const bucket = uniq("batch");
  const path = `/${bucket}/events`;
  await put(request, path);
  expect((await post(request, path, '{"first":true}')).status()).toBe(204);
  const before = Number((await request.head(path)).headers()["stream-next-offset"]!.split("_")[1]);

  await page.goto(`/ui/compose?target=${encodeURIComponent(path)}&endpoint=append-batch`);
  await expect(page.getByLabel("Endpoint")).toHaveValue("append-batch");
  await page.getByLabel("Frame 1", { exact: true }).fill('{"n":1}');
  await page.getByLabel("Frame 2", { exact: true }).fill('[{"n":2},{"n":3}]');
  await page.getByRole("button", { name: "Add frame" }).click();
  await page.getByLabel("Frame 3", { exact: true }).fill('"three"');
  await expect(page.getByTestId("request-line")).toHaveText(`POST ${path}/append-batch`);
  await expect(page.getByTestId("batch-size")).toContainText("3 frames");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("200");
  const acks = page.getByTestId("batch-acks").locator("tbody tr");
  await expect(acks).toHaveCount(3);

  // The server's bytes: one message per JSON value, each a line; an ack is the end of its frame's messages.
  const stored = (await (await request.get(`${path}?offset=-1&format=ndjson`)).text()).split("\n").filter(Boolean);
  expect(stored).toEqual(['{"first":true}', '{"n":1}', '{"n":2}', '{"n":3}', '"three"']);
  const ends = [before + 8, before + 8 + 16, before + 8 + 16 + 8];
  const tail = Number((await request.head(path)).headers()["stream-next-offset"]!.split("_")[1]);
  expect(tail).toBe(ends[2]);
  for (let i = 0; i < 3; i++) {
    await expect(acks.nth(i)).toHaveAttribute("data-status", "204");
    await expect(acks.nth(i).locator('[data-col="next-offset"]')).toHaveText(`0000000000000000_${String(ends[i]).padStart(16, "0")}`);
  }

  // Copy as curl: printf writes the same framed bytes, and the server appends them again.
  await page.getByTestId("response-inspector").getByText("curl / fetch").click();
  const curl = await page.getByTestId("curl-snippet").textContent();
  expect(curl).toMatch(/^printf '\\000\\000\\000\\007\{"n":1\}/);
  expect(curlStatus(sh(curl!))).toBe(200);
  const again = Number((await request.head(path)).headers()["stream-next-offset"]!.split("_")[1]);
  expect(again - tail).toBe(tail - before);

  // A write guard on a batch: the whole request is refused, and nothing is applied.
  await page.getByRole("checkbox", { name: /^Stream-Seq/ }).check();
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("400");
  await expect(page.getByTestId("error-code")).toHaveText("UNSUPPORTED_HEADER");
  expect((await request.head(path)).headers()["stream-next-offset"]).toBe(`0000000000000000_${String(again).padStart(16, "0")}`);
  await shot(page, screenshotPath("console-composer-batch-1280"));

  // Bootstrap from the composer shows the parts one by one.
  await page.getByRole("checkbox", { name: /^Stream-Seq/ }).uncheck();
  await page.getByLabel("Endpoint").selectOption("bootstrap");
  await page.getByRole("button", { name: "Send" }).click();
  const parts = page.getByRole("list", { name: "Bootstrap parts" }).locator("li");
  await expect(parts).toHaveCount(1 + stored.length + 4);
  await expect(parts.nth(2)).toContainText('{"n":1}');
  await page.setViewportSize({ width: 1920, height: 1000 });
  await shot(page, screenshotPath("console-composer-bootstrap-1920"));
});
