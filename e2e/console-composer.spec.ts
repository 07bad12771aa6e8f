// The composer against the real server: a Stream-Seq 409 with Stream-Last-Seq highlighted,
// retry from it in one click, a 412 carrying the new incarnation token (the composer keeps
// sending the old one until "start over"), copy-as-curl that reproduces the same status when
// run, and the timeline that recorded all of it.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { curlStatus, post, put, sh, uniq, shot } from "./console/helpers.ts";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const pad = (n: number) => String(n).padStart(20, "0");

test("409 STREAM_SEQ_CONFLICT, retry from it, then a 412 with the new token: Send keeps the old token until start over; curl reproduces both", async ({ page, request }) => {
  const bucket = uniq("compose");
  const path = `/${bucket}/run`;
  await put(request, path);
  // Another writer wins the race: 2 events committed with Stream-Seq 0.
  expect((await post(request, path, '[{"by":"other","n":0},{"by":"other","n":1}]', { "Stream-Seq": pad(0) })).status()).toBe(204);

  await page.goto(`/ui/compose?target=${encodeURIComponent(path)}`);
  await expect(page.getByLabel("Target path")).toHaveValue(path);
  await page.getByRole("textbox", { name: "Body", exact: true }).fill('[{"by":"console","n":0}]');
  await page.getByRole("checkbox", { name: /^Stream-Seq/ }).check();
  await page.getByLabel("Count to pad").fill("0");
  await page.getByRole("button", { name: "Pad to 20" }).click();
  await expect(page.getByLabel("Stream-Seq value")).toHaveValue(pad(0));
  await page.getByRole("button", { name: "Send" }).click();

  const inspector = page.getByTestId("response-inspector");
  await expect(page.getByTestId("response-status")).toHaveText("409");
  // The answer is beside the form at this width: Send does not scroll the page.
  expect(await page.evaluate(() => scrollY)).toBe(0);
  // What it means: stored next to sent, and both ways a Stream-Seq 409 happens.
  const cause = inspector.getByTestId("cause");
  await expect(cause.getByTestId("sent-value")).toHaveText(pad(0));
  await expect(cause.getByTestId("stored-value")).toHaveText(pad(0));
  await expect(cause.locator("ul.causes > li strong")).toHaveText(["Another writer committed first", "Your own value is stale"]);
  await expect(page.getByTestId("error-code")).toHaveText("STREAM_SEQ_CONFLICT");
  await expect(inspector.locator('[data-outcome="409-seq"]')).toBeVisible();
  const lastSeqRow = inspector.locator('tr[data-header="stream-last-seq"]');
  await expect(lastSeqRow).toHaveClass(/explains/);
  await expect(lastSeqRow).toContainText(pad(0));
  await expect(page.getByTestId("response-timing")).toContainText("ms");

  // Copy as curl: the clipboard holds the snippet, and running it gets the same 409.
  await inspector.getByRole("button", { name: "Copy as curl" }).click();
  const curl409 = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl409).toContain(`-H 'Stream-Seq: ${pad(0)}'`);
  await inspector.getByText("curl / fetch").click();
  await expect(page.getByTestId("curl-snippet")).toHaveText(curl409);
  expect(curlStatus(sh(curl409))).toBe(409);
  await shot(page, screenshotPath("console-composer-409"));

  // Retry from the 409: read on to Stream-Next-Offset (2 new events), retry with n + k = 2.
  await page.getByRole("button", { name: "Read on and retry" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("204");
  await expect(page.getByTestId("retry-result")).toContainText(pad(2));
  await expect(page.getByTestId("retry-result")).toContainText("n + k = 0 + 2 = 2");
  const log = await request.get(`${path}?offset=-1`);
  expect(await log.json()).toEqual([
    { by: "other", n: 0 },
    { by: "other", n: 1 },
    { by: "console", n: 0 },
  ]);

  // 412: keep the token, recreate the stream behind the console's back, send with the old token.
  const oldToken = (await request.head(path)).headers()["stream-incarnation"]!;
  await page.getByRole("checkbox", { name: /^Stream-Incarnation/ }).check();
  await expect(page.getByLabel("Stream-Incarnation value")).toHaveValue(oldToken);
  await page.getByRole("checkbox", { name: /^Stream-Seq/ }).uncheck();
  await request.delete(path);
  await put(request, path);
  const newToken = (await request.head(path)).headers()["stream-incarnation"]!;
  expect(newToken).not.toBe(oldToken);
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("412");
  await expect(page.getByTestId("error-code")).toHaveText("STREAM_INCARNATION_MISMATCH");
  const tokenRow = inspector.locator('tr[data-header="stream-incarnation"]');
  await expect(tokenRow).toHaveClass(/explains/);
  await expect(tokenRow).toContainText(newToken);
  // No retry is offered on a 412, and none on a 409 without Stream-Last-Seq.
  await expect(page.getByRole("button", { name: "Read on and retry" })).toHaveCount(0);
  await inspector.getByRole("button", { name: "Copy as curl" }).click();
  const curl412 = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl412).toContain(`Stream-Incarnation: ${oldToken}`);
  expect(curlStatus(sh(curl412))).toBe(412);
  await shot(page, screenshotPath("console-composer-412"));

  // The composer does not cross the incarnation by itself: it says the stream is gone, with the
  // new token, and a second Send still carries the old one (checked on the wire): 412 again.
  const gone = page.getByTestId("incarnation-gone");
  await expect(gone).toContainText("The stream you knew is gone");
  await expect(gone.getByTestId("kept-token")).toHaveText(oldToken);
  await expect(gone.getByTestId("current-token")).toHaveText(newToken);
  await expect(page.getByLabel("Stream-Incarnation value")).toHaveValue(oldToken);
  await expect(page.getByTestId("token-gone")).toBeVisible();
  const sent = (name: string) => page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === path && r.headers()[name] !== undefined);
  const [second] = await Promise.all([sent("stream-incarnation"), page.getByRole("button", { name: "Send" }).click()]);
  expect(second.headers()["stream-incarnation"]).toBe(oldToken);
  await expect(page.getByTestId("response-status")).toHaveText("412");
  expect(await (await request.get(`${path}?offset=-1`)).json()).toEqual([]);

  // Starting over adopts the new token and clears what came from the old stream.
  await expect(page.getByLabel("Stream-Seq value")).toHaveValue(pad(2));
  await gone.getByRole("button", { name: "Start over with the new stream" }).click();
  await expect(gone).toHaveCount(0);
  await expect(page.getByLabel("Stream-Incarnation value")).toHaveValue(newToken);
  await expect(page.getByLabel("Stream-Seq value")).toHaveValue(pad(0));
  await expect(page.getByLabel("Producer-Seq")).toHaveValue("0");
  const [third] = await Promise.all([sent("stream-incarnation"), page.getByRole("button", { name: "Send" }).click()]);
  expect(third.headers()["stream-incarnation"]).toBe(newToken);
  await expect(page.getByTestId("response-status")).toHaveText("204");

  // A content-type 409 carries no Stream-Last-Seq, so no retry.
  await page.getByLabel("Content-Type value").fill("text/plain");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("error-code")).toHaveText("CONTENT_TYPE_MISMATCH");
  await expect(page.getByTestId("no-retry")).toBeVisible();

  // The timeline has every attempt, filterable by outcome, each expanding to the exchange.
  await page.getByRole("link", { name: "Timeline" }).first().click();
  await expect(page.getByRole("heading", { name: "Attempt timeline" })).toBeVisible();
  const attempts = page.getByRole("list", { name: "Attempts" });
  await page.getByRole("button", { name: /^409 seq/ }).click();
  await expect(attempts.locator("li.attempt")).toHaveCount(1);
  await page.getByRole("button", { name: /^409 seq/ }).click();
  await page.getByRole("button", { name: /^412/ }).click();
  // Both Sends with the old token.
  await expect(attempts.locator("li.attempt")).toHaveCount(2);
  await attempts.locator("li.attempt button.attempt-line").first().click();
  await expect(attempts.getByText(`Stream-Incarnation`).first()).toBeVisible();
  await expect(attempts.locator('tr[data-header="stream-incarnation"].explains')).toContainText(newToken);
  await page.getByRole("button", { name: /^412/ }).click();
  for (const o of ["409-seq", "accepted", "412", "409-content-type"]) await expect(attempts.locator(`li.attempt[data-outcome="${o}"]`).first()).toBeVisible();
  await shot(page, screenshotPath("console-timeline"));
});

test("any request: GET over SSE shows the first seconds, HEAD shows headers only", async ({ page, request }) => {
  const bucket = uniq("anyreq");
  const path = `/${bucket}/s`;
  await put(request, path);
  await post(request, path, '[{"hello":"sse"}]');
  await page.goto(`/ui/compose?target=${encodeURIComponent(path)}`);
  await page.getByLabel("Method").selectOption("GET");
  await page.getByLabel("Query").fill("offset=-1&live=sse");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("200", { timeout: 10_000 });
  const inspector = page.getByTestId("response-inspector");
  await expect(inspector).toContainText("Body below is partial");
  await expect(inspector.getByLabel("Response body")).toContainText("event: data");
  await expect(inspector.locator('tr[data-header="content-type"]')).toContainText("text/event-stream");

  await page.getByLabel("Method").selectOption("HEAD");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("200");
  await expect(inspector.locator('tr[data-header="stream-next-offset"]')).toContainText("0000000000000000_0000000000000016");
});

test("the default target: the composer says it does not exist yet and creates it in one click", async ({ page }) => {
  await page.goto("/ui/compose");
  const target = await page.getByLabel("Target path").inputValue();
  // A fresh path, so the check does not depend on what other specs created.
  const fresh = `${target}-${Date.now().toString(36)}`;
  await page.getByLabel("Target path").fill(fresh);
  const status = page.getByTestId("target-status");
  await expect(status).toHaveAttribute("data-exists", "false");
  await expect(status).toContainText("this POST will answer 404");
  await status.getByRole("button", { name: /^Create it/ }).click();
  await expect(page.getByTestId("response-status")).toHaveText("201");
  await expect(status).toHaveAttribute("data-exists", "true");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("204");
});
