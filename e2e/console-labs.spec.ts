// The labs run against the real server: the race lab to a passing verdict, the race lab with
// the after-commit pitfall (both stale writers accepted, verdict fails), the incarnation lab
// (412, then starting over), and the outbox lab (a lost answer retried as a duplicate, a 409
// "already published", a 403 fence).
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { shot } from "./console/helpers.ts";

/** A writer's entries in the swimlane: the cells of its lane. */
const lane = (page: Page, w: string) => page.locator(`.swim-cell[data-writer="${w}"]`);

test("race lab: step by step to completion with a passing verdict", async ({ page, request }) => {
  await page.goto("/ui/lab/race");
  // A few single steps by hand: A reads, B reads, A commits, B loses with 409 + Stream-Last-Seq.
  const step = page.getByRole("button", { name: "Step", exact: true });
  await step.click();
  const laneA = lane(page, "A");
  const laneB = lane(page, "B");
  await expect(laneA.locator('[data-kind="read"]')).toContainText("n = 0");
  await step.click();
  await expect(laneB.locator('[data-kind="read"]')).toContainText("n = 0");
  await step.click();
  await expect(laneA.locator('[data-kind="commit"]').first()).toHaveAttribute("data-status", "204");
  await step.click();
  const lost = laneB.locator('[data-kind="commit"]').first();
  await expect(lost).toHaveAttribute("data-status", "409");
  await expect(lost.getByTestId("last-seq")).toContainText("00000000000000000000");
  // The swimlane names the commit that won: A's, three actions in.
  await expect(lost.getByTestId("lost-to")).toHaveText("lost to A #3");
  await step.click(); // A reads again
  await step.click(); // B reads on: k = 1
  await expect(laneB.locator('[data-kind="read-on"]').first()).toContainText("k = 1 → n = 1");
  await expect(laneB.locator('[data-kind="read-on"]').first()).toContainText("1 new event,");
  await expect(page.getByText(/\b1 new events\b/)).toHaveCount(0);

  // Then the rest, step by step, to the verdict.
  await page.getByRole("button", { name: "Run step by step" }).click();
  const verdict = page.getByTestId("verdict");
  await expect(verdict).toHaveAttribute("data-ok", "true", { timeout: 20_000 });
  await expect(verdict).toContainText("PASS");
  await expect(page.getByTestId("phase-A")).toHaveText("done");
  await expect(page.getByTestId("phase-B")).toHaveText("done");
  // B's retry used n + k: its accepted commit's Stream-Seq equals the events before it.
  await expect(page.getByRole("table", { name: "Commits in log order" }).locator("tbody tr")).toHaveCount(4);

  // The verdict is about the real stream: check it from outside too.
  const streamPath = await page.locator(".lab-layout a.mono").first().textContent();
  const events = (await (await request.get(`${streamPath}?offset=-1`)).json()) as { seq: string }[];
  expect(events.length).toBe(6);
  await shot(page, screenshotPath("console-race-lab"));
});

test("race lab: continuous run with four writers passes", async ({ page }) => {
  await page.goto("/ui/lab/race");
  await page.getByLabel("writers", { exact: true }).selectOption("4");
  await page.getByRole("button", { name: "Run continuously" }).click();
  await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true", { timeout: 25_000 });
  for (const w of ["A", "B", "C", "D"]) await expect(page.getByTestId(`phase-${w}`)).toHaveText("done");
});

test("race lab: counting after your own commit lets both stale writers win", async ({ page }) => {
  await page.goto("/ui/lab/race");
  await page.getByLabel("commits each", { exact: true }).selectOption("1");
  await page.getByRole("checkbox", { name: /Count after your own commit/ }).check();
  await expect(page.getByText("Writers send n + their own events.")).toBeVisible();
  await page.getByRole("button", { name: "Run step by step" }).click();
  const verdict = page.getByTestId("verdict");
  await expect(verdict).toHaveAttribute("data-ok", "false", { timeout: 20_000 });
  // Both read the same empty log, and both commits were accepted.
  for (const w of ["A", "B"]) {
    const cells = lane(page, w);
    await expect(cells.locator('[data-kind="read"]')).toContainText("n = 0");
    await expect(cells.locator('[data-kind="commit"]')).toHaveCount(1);
    await expect(cells.locator('[data-kind="commit"]')).toHaveAttribute("data-status", "204");
    await expect(cells.locator('[data-outcome="accepted"]')).toBeVisible();
  }
  await expect(verdict).toContainText("1 of 2 commits was validated against a stale log. 1 more saw the whole log");
  // The first commit went onto an empty log: it saw the whole log, its value was the only fault.
  const rows = page.getByRole("table", { name: "Commits in log order" }).locator("tbody tr");
  await expect(rows.nth(0)).toContainText("it saw the whole log, but Stream-Seq 1 counts its own 1 event too");
  await expect(rows.nth(1)).toContainText("validated against a stale log");
  await shot(page, screenshotPath("console-race-lab-after-commit"));
});

test("race lab: a seeding PUT leaves every writer stuck on 409", async ({ page }) => {
  await page.goto("/ui/lab/race");
  await page.getByRole("checkbox", { name: /Seeding PUT/ }).check();
  await page.getByRole("button", { name: "Run step by step" }).click();
  await expect(page.getByTestId("verdict")).toContainText("No commit was accepted", { timeout: 20_000 });
  await expect(page.getByTestId("phase-A")).toHaveText("stuck");
});

test("incarnation lab: the old token gets 412 with the new one; a missing stream stays 404; the client starts over", async ({ page, request }) => {
  await page.goto("/ui/lab/incarnation");
  await page.getByRole("button", { name: "Run all" }).click();
  const steps = page.locator("li.script-step.done");
  await expect(steps).toHaveCount(12, { timeout: 20_000 });
  await expect(page.locator('li.script-step.done[data-ok="false"]')).toHaveCount(0);
  const oldToken = await page.getByTestId("old-token").textContent();
  const newToken = await page.getByTestId("new-token").textContent();
  expect(oldToken).not.toBe(newToken);
  for (const i of [4, 5, 6]) {
    const s = page.locator(`li.script-step[data-step="${i}"]`);
    await expect(s.locator(".chip.mono")).toHaveText("412");
    await expect(s).toContainText(`Stream-Incarnation: ${newToken}`);
  }
  await expect(page.locator('li.script-step[data-step="7"] .chip.mono')).toHaveText("404");
  // Starting over: the new stream read from its start with the new token, then written to.
  await expect(page.locator('li.script-step[data-step="10"]')).toContainText("empty: the first life's event went with the old stream");
  await expect(page.locator('li.script-step[data-step="11"] .chip.mono')).toHaveText("204");
  const path = (await page.locator("section.panel h2").filter({ hasText: /^Recreate / }).textContent())!.replace("Recreate ", "");
  const res = await request.get(`${path}?offset=-1`, { headers: { "Stream-Incarnation": newToken! } });
  expect(await res.json()).toEqual([{ step: "second life" }]);
  await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("verdict-happened")).toContainText(`Its append, read and HEAD with the old token each answered 412`);
  await shot(page, screenshotPath("console-incarnation-lab"));
});

test("outbox lab: a lost answer retried is a duplicate; the new owner skips the already-published fact and fences the old owner", async ({ page, request }) => {
  await page.goto("/ui/lab/outbox");
  await page.getByRole("button", { name: "Run all" }).click();
  await expect(page.locator("li.script-step.done")).toHaveCount(12, { timeout: 20_000 });
  await expect(page.locator('li.script-step.done[data-ok="false"]')).toHaveCount(0);
  // The answer to fact 2 is lost; the retry with the same producer headers is answered as a duplicate.
  await expect(page.locator('li.script-step[data-step="2"]').getByTestId("answer-lost")).toBeVisible();
  const retry = page.locator('li.script-step[data-step="3"]');
  await expect(retry.locator(".chip.mono")).toHaveText("204");
  await expect(retry.locator('[data-outcome="duplicate"]')).toBeVisible();
  await expect(retry).toContainText("nothing was written again");
  await expect(page.locator('li.script-step[data-step="6"]')).toContainText("fact 2 is already published");
  await expect(page.locator('li.script-step[data-step="6"]')).toContainText("Stream-Last-Seq: 00000000000000000003");
  await expect(page.locator('li.script-step[data-step="8"] .chip.mono')).toHaveText("403");
  await expect(page.locator('li.script-step[data-step="11"]')).toContainText("Facts 1, 2, 3, 4, 5, 6: none lost, none twice.");
  // From outside: the stream holds each fact once, fact 2 included.
  const path = (await page.locator("section.panel h2").filter({ hasText: /^Takeover on / }).textContent())!.replace("Takeover on ", "");
  const facts = ((await (await request.get(`${path}?offset=-1`)).json()) as { fact: number }[]).map((f) => f.fact);
  expect(facts).toEqual([1, 2, 3, 4, 5, 6]);
  await expect(page.getByTestId("verdict")).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("verdict-happened")).toContainText("The answer to fact 2 was lost and the old owner sent it again: 204, a duplicate.");
  await shot(page, screenshotPath("console-outbox-lab"));
});
