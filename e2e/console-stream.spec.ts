// The stream page shows what the HTTP API reports: every field is compared with HEAD and
// the write responses, not with hard-coded values.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { post, put, uniq, shot } from "./console/helpers.ts";

test("stream page fields match the HTTP API", async ({ page, request }) => {
  const bucket = uniq("stream");
  const path = `/${bucket}/orders`;
  await put(request, path, { "Stream-TTL": "3600" });
  const seqWrite = await post(request, path, '[{"order":1,"total":1e400},{"order":2}]', { "Stream-Seq": "00000000000000000000" });
  expect(seqWrite.status()).toBe(204);
  const p0 = await post(request, path, '{"order":3}', { "Producer-Id": "checkout", "Producer-Epoch": "3", "Producer-Seq": "0" });
  expect(p0.status()).toBe(200);
  const p1 = await post(request, path, '{"order":4}', { "Producer-Id": "checkout", "Producer-Epoch": "3", "Producer-Seq": "1" });
  expect(p1.status()).toBe(200);
  const head = await request.head(path);
  const h = head.headers();

  await page.goto(`/ui/s/${bucket}/orders`);
  const field = (name: string) => page.locator(`[data-field="${name}"]`);
  await expect(field("content_type")).toHaveText(h["content-type"]!);
  await expect(field("next_offset")).toHaveText(h["stream-next-offset"]!);
  await expect(field("incarnation")).toHaveText(h["stream-incarnation"]!);
  await expect(field("lifetime")).toHaveText(`TTL ${h["stream-ttl"]} s`);
  await expect(field("closed")).toHaveText("open");
  await expect(field("last_stream_seq")).toHaveText("00000000000000000000");
  await expect(field("message_count")).toHaveText("4");
  const producer = page.locator('[data-producer="checkout"]');
  await expect(producer.locator('[data-col="epoch"]')).toHaveText("3");
  await expect(producer.locator('[data-col="last_seq"]')).toHaveText("1");
  // The server's default limits (spec §5.3): 4096 producers, each forgotten after 7 idle days.
  await expect(page.getByRole("heading", { name: "Producers (1 of at most 4,096)" })).toBeVisible();
  await expect(producer.locator('[data-col="forgotten"]')).toHaveText(/^in 6d 23h$|^in 7d 0h$/);

  // The message viewer pretty-prints JSON from the stored text (1e400 stays 1e400).
  const messages = page.getByRole("list", { name: "Messages" });
  await expect(messages.locator("li")).toHaveCount(4);
  await expect(messages.locator("li").first()).toContainText('"total": 1e400');
  await expect(messages.locator("li").nth(1)).toContainText("@");
  await expect(page.getByRole("img", { name: new RegExp(`Bytes 0 to ${Number(h["stream-next-offset"]!.split("_")[1])}`) })).toBeVisible();

  // Each message's offset is a link that opens the viewer there; it is the server's offset.
  const first = await request.get(`${path}?offset=-1&max_bytes=1`);
  const afterFirst = first.headers()["stream-next-offset"]!;
  await messages.locator("li").nth(1).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`from=${afterFirst}`));
  await expect(messages.locator("li")).toHaveCount(3);
  await expect(messages.locator("li").first()).toContainText('"order": 2');
  await page.reload();
  await expect(messages.locator("li")).toHaveCount(3);

  // A write from outside shows up within the refresh interval; closing is reflected too.
  const close = await request.post(path, { headers: { "Stream-Closed": "true" } });
  expect(close.status()).toBe(204);
  await expect(field("closed")).toHaveText("closed");
  const after = await request.head(path);
  expect(after.headers()["stream-closed"]).toBe("true");

  await page.goto(`/ui/s/${bucket}/orders`);
  await expect(field("closed")).toHaveText("closed");
  await shot(page, screenshotPath("console-stream"));
});

test("binary streams render as hex and text streams as text", async ({ page, request }) => {
  const bucket = uniq("kinds");
  await request.put(`/${bucket}/blob`, { headers: { "Content-Type": "application/octet-stream" } });
  await request.post(`/${bucket}/blob`, { headers: { "Content-Type": "application/octet-stream" }, data: Buffer.from([0, 1, 0xfe, 0x41, 0x42]) });
  await request.put(`/${bucket}/log`, { headers: { "Content-Type": "text/plain" } });
  await request.post(`/${bucket}/log`, { headers: { "Content-Type": "text/plain" }, data: "hello\nworld\n" });

  await page.goto(`/ui/s/${bucket}/blob`);
  await expect(page.getByLabel("Hex dump")).toContainText("00 01 fe 41 42");
  await expect(page.getByLabel("Hex dump")).toContainText("···AB");
  await page.goto(`/ui/s/${bucket}/log`);
  // One row per append, its newlines shown as ↵; the detail shows the text as stored.
  await expect(page.getByRole("list", { name: "Messages" }).locator("li")).toHaveCount(1);
  await expect(page.getByRole("list", { name: "Messages" })).toContainText("hello↵ world↵");
  await expect(page.getByTestId("message-detail").locator("pre")).toHaveText("hello\nworld\n", { useInnerText: true });
  await page.getByRole("button", { name: "Hex" }).click();
  await expect(page).toHaveURL(/as=hex/);
  await expect(page.getByLabel("Hex dump")).toContainText("68 65 6c 6c 6f");
});

test("a missing stream says so", async ({ page }) => {
  await page.goto(`/ui/s/${uniq("nobucket")}/nothing`);
  await expect(page.getByRole("alert")).toContainText("does not exist (404 STREAM_NOT_FOUND)");
});
