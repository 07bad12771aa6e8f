// The live tail follows a stream over SSE: an append made by curl, outside the browser,
// shows up; the cap holds; deleting the stream turns the status to "gone".
import { test, expect, screenshotPath } from "./fixtures.ts";
import { put, sh, shot, uniq } from "./console/helpers.ts";

test("live tail receives an append made by curl and reports gone after a delete", async ({ page, request, baseURL }) => {
  const bucket = uniq("tail");
  const path = `/${bucket}/events`;
  await put(request, path);
  await page.goto(`/ui/s/${bucket}/events?tab=tail`);
  await page.getByRole("button", { name: "Start live tail" }).click();
  const status = page.getByTestId("tail-status");
  await expect(status).toHaveAttribute("data-status", "live");

  const out = sh(`curl -s -o /dev/null -w '%{http_code}' -X POST '${baseURL}${path}' -H 'Content-Type: application/json' --data-binary '[{"from":"curl","n":1},{"from":"curl","n":2}]'`);
  expect(out).toBe("204");
  const live = page.getByRole("list", { name: "Live messages, newest first" });
  await expect(live.locator("li")).toHaveCount(2);
  await expect(live.locator("li").first()).toContainText('"n": 2');
  await expect(live.locator("li").last()).toContainText("@0");
  await expect(page.getByTestId("tail-counts")).toHaveText("2 received · 2 kept · 0 dropped");

  // The cap: keep 100 rows, count the rest as dropped.
  const batch = JSON.stringify(Array.from({ length: 150 }, (_, i) => ({ i })));
  sh(`curl -s -o /dev/null -X POST '${baseURL}${path}' -H 'Content-Type: application/json' --data-binary '${batch}'`);
  await page.getByLabel("Rows kept in memory").selectOption("100");
  await expect(page.getByTestId("tail-counts")).toHaveText("152 received · 100 kept · 52 dropped");
  await expect(live.locator("li")).toHaveCount(100);
  // What the tail saw, the stream's state shows too: data on the tail triggers a re-read.
  await expect(page.locator('[data-field="message_count"]')).toHaveText("152");
  // The rate panel names its unit everywhere and its headline is the minute's average, the
  // picture beside it: never "0" next to a spike.
  await expect(page.getByTestId("rate-detail")).toHaveText(/^now [\d.,]+ msg\/s · peak [\d.,]+ msg\/s/);
  await shot(page, screenshotPath("console-live-tail"));

  // Delete the stream: the server ends the SSE response with an error event; the reconnect
  // gets 404 and the status says so instead of retrying forever.
  await request.delete(path);
  await expect(status).toHaveAttribute("data-status", "gone", { timeout: 10_000 });
  await expect(page.getByRole("status")).toContainText("no longer exists");
});
