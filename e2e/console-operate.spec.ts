// Operating from the browse and stream pages: create (content type, TTL, a seeding Stream-Seq
// behind the warning of Ursula v0.9.0, Conditional Writes), append (and a refused stale append,
// explained), close and delete
// behind a confirmation, each checked against the HTTP API, each in the attempt timeline with a
// copy-as-curl that reproduces it; and the incarnation token that keeps a delete from reaching a
// stream recreated meanwhile.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { curlStatus, put, sh, shot, shotView, uniq } from "./console/helpers.ts";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });
const pad = (n: number) => String(n).padStart(20, "0");

test("create, append, close and delete from the UI, each as the HTTP API sees it", async ({ page, request }) => {
  const bucket = uniq("ops");
  await put(request, `/${bucket}/existing`);
  await page.goto(`/ui/b/${bucket}`);

  // Create: text/plain, a TTL, and a seeding Stream-Seq (the warning appears with it).
  await page.getByRole("button", { name: "Create stream" }).click();
  const dialog = page.getByTestId("create-dialog");
  await dialog.getByLabel("Stream ID").fill("notes");
  await dialog.getByLabel("Content type").fill("text/plain");
  await dialog.getByRole("radio", { name: "Stream-TTL" }).check();
  await dialog.getByLabel("TTL seconds").fill("600");
  await expect(dialog.getByTestId("seed-warning")).toHaveCount(0);
  await dialog.getByRole("checkbox", { name: /Stream-Seq/ }).check();
  await expect(dialog.getByTestId("seed-warning")).toContainText("every honest writer's count too small");
  await dialog.getByLabel("Starting Stream-Seq").fill(pad(7));
  await expect(dialog.getByTestId("create-request-line")).toHaveText(`PUT /${bucket}/notes`);
  await dialog.getByRole("button", { name: "Create", exact: true }).click();
  await expect(dialog.getByTestId("action-result")).toHaveAttribute("data-status", "201");
  await shotView(page, screenshotPath("console-operate-create-1280"));
  const head = await request.head(`/${bucket}/notes`);
  expect(head.status()).toBe(200);
  expect(head.headers()["content-type"]).toBe("text/plain");
  expect(head.headers()["stream-ttl"]).toBe("600");
  const detail = await (await request.get(`/__ursula/api/streams/${bucket}/notes`)).json();
  expect(detail.last_stream_seq).toBe(pad(7));
  // The list behind the dialog already shows it.
  await page.keyboard.press("Escape");
  const table = page.getByRole("table", { name: "Streams" });
  await expect(table.locator('tr[data-stream="notes"] [data-col="last_seq"]')).toHaveText(pad(7));
  await expect(page.getByTestId("stream-total")).toHaveText("2 streams");

  // Append from the stream page: Stream-Seq 8 beats the stored 7.
  await table.getByRole("link", { name: "notes" }).click();
  await page.getByRole("button", { name: "Append…" }).click();
  const append = page.getByTestId("append-dialog");
  await append.getByRole("textbox", { name: /^Body/ }).fill("first line\n");
  await append.getByRole("checkbox", { name: /Stream-Seq/ }).check();
  await append.getByLabel("Stream-Seq value").fill(pad(8));
  await append.getByRole("button", { name: "Append", exact: true }).click();
  await expect(append.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  expect(await (await request.get(`/${bucket}/notes?offset=-1`)).text()).toBe("first line\n");
  // No stale view: the page behind shows the append at once.
  await expect(page.locator('[data-field="last_stream_seq"]')).toHaveText(pad(8));
  await expect(page.locator('[data-field="message_count"]')).toHaveText("1");

  // The same value again: refused, with stored next to sent, both causes, and this browser's own
  // accepted append named as the likely one.
  await append.getByRole("button", { name: "Append", exact: true }).click();
  const refused = append.getByTestId("action-result");
  await expect(refused).toHaveAttribute("data-status", "409");
  await expect(refused.getByTestId("sent-value")).toHaveText(pad(8));
  await expect(refused.getByTestId("stored-value")).toHaveText(pad(8));
  await expect(refused.locator("ul.causes > li")).toHaveCount(2);
  await expect(refused.locator("ul.causes > li").first()).toContainText("Another writer committed first");
  await expect(refused.locator('li[data-likely="true"]')).toContainText("Your own value is stale");
  await refused.getByText("The rule, in Ursula's words").click();
  await expect(refused.locator('blockquote[data-rule="seq-409"]')).toContainText("An equal or smaller value answers 409 Conflict");
  await shotView(page, screenshotPath("console-operate-409-1280"));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await shotView(page, screenshotPath("console-operate-409-1920"));
  await page.setViewportSize({ width: 1280, height: 720 });
  // Its copy-as-curl gets the same answer from the server.
  await refused.getByRole("button", { name: "Copy as curl" }).click();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`Stream-Seq: ${pad(8)}`);
  expect(curlStatus(sh(curl))).toBe(409);
  expect(await (await request.get(`/${bucket}/notes?offset=-1`)).text()).toBe("first line\n");
  await page.keyboard.press("Escape");

  // Close from the list's row menu, behind a confirmation.
  await page.getByRole("link", { name: bucket }).click();
  await table.locator('tr[data-stream="notes"] summary').click();
  await table.locator('tr[data-stream="notes"]').getByRole("button", { name: "Close…" }).click();
  const close = page.getByTestId("close-dialog");
  await expect(close).toContainText("accepts no more appends, ever");
  await close.getByRole("button", { name: "Close stream" }).click();
  await expect(close.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  expect((await request.head(`/${bucket}/notes`)).headers()["stream-closed"]).toBe("true");
  await page.keyboard.press("Escape");
  await expect(table.locator('tr[data-stream="notes"] [data-col="state"]')).toHaveText("closed");

  // Delete from the stream page, behind a confirmation that says what goes.
  await table.getByRole("link", { name: "notes" }).click();
  await expect(page.locator('[data-field="closed"]')).toHaveText("closed");
  await page.getByRole("button", { name: "Delete…" }).click();
  const del = page.getByTestId("delete-dialog");
  await expect(del).toContainText("This deletes 1 message, the stored Stream-Seq and every producer's state");
  await expect(del.locator('tr[data-header="stream-incarnation"]')).toContainText(detail.incarnation);
  await del.getByRole("button", { name: "Delete stream" }).click();
  await expect(del.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  expect((await request.head(`/${bucket}/notes`)).status()).toBe(404);
  await page.keyboard.press("Escape");
  await expect(page.getByRole("alert")).toContainText("does not exist (404 STREAM_NOT_FOUND)");

  // Every one of these is in the timeline, from the browse pages.
  await page.goto("/ui/timeline");
  await page.getByLabel("source").selectOption("browse");
  const attempts = page.getByRole("list", { name: "Attempts" }).locator("li.attempt");
  await expect(attempts).toHaveCount(5);
  for (const o of ["created", "accepted", "409-seq", "deleted"]) await expect(page.locator(`li.attempt[data-outcome="${o}"]`).first()).toBeVisible();
  await shot(page, screenshotPath("console-operate-timeline-1280"));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await shot(page, screenshotPath("console-operate-timeline-1920"));
});

test("a delete sent with the token on screen cannot reach a stream recreated meanwhile", async ({ page, request }) => {
  const bucket = uniq("ops");
  const path = `/${bucket}/s`;
  await put(request, path);
  await page.goto(`/ui/b/${bucket}`);
  const table = page.getByRole("table", { name: "Streams" });
  await expect(table.locator('tr[data-stream="s"]')).toBeVisible();
  // Behind the console's back: deleted and recreated, so the row's token is stale.
  await request.delete(path);
  await put(request, path);
  const current = (await request.head(path)).headers()["stream-incarnation"]!;
  await table.locator('tr[data-stream="s"] summary').click();
  await table.locator('tr[data-stream="s"]').getByRole("button", { name: "Delete…" }).click();
  const del = page.getByTestId("delete-dialog");
  await del.getByRole("button", { name: "Delete stream" }).click();
  const result = del.getByTestId("action-result");
  await expect(result).toHaveAttribute("data-status", "412");
  await expect(result.getByTestId("stored-value")).toHaveText(current);
  await expect(result).toContainText("Nothing was applied");
  expect((await request.head(path)).status()).toBe(200);
  await page.setViewportSize({ width: 1920, height: 1000 });
  await shotView(page, screenshotPath("console-operate-412-1920"));
});
