// The console on a server with access control (--token-file): it asks for a token and then
// works, keeps the token in this tab's sessionStorage only (never in localStorage, the timeline
// or a snippet), shows read-only mode for a read token (write actions refused in the UI, nothing
// written, checked over HTTP), explains a 403 INSUFFICIENT_SCOPE and a concealing 404 in its own
// words, and with a token limited to one bucket sees only that bucket.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, expect, screenshotPath } from "./fixtures.ts";
import type { Page } from "@playwright/test";
import { startUrsa, type UrsaProcess } from "./server-process.ts";
import { axeViolations } from "./console/a11y.ts";
import { curlStatus, sh, shot } from "./console/helpers.ts";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const ADMIN = "admin-token-0123456789abcdef";
const READER = "reader-token-0123456789abcd";
const DEMO_WRITER = "demo-writer-token-0123456789";

let ursa: UrsaProcess;
let dir: string;

/** An HTTP request with the admin token, from outside the browser. */
function admin(path: string, init: RequestInit = {}): Promise<Response> {
  return fetch(ursa.url + path, { ...init, headers: { Authorization: `Bearer ${ADMIN}`, ...init.headers } });
}

test.beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ursa-auth-"));
  const file = join(dir, "tokens.txt");
  writeFileSync(file, `${ADMIN} read,write,admin\n${READER} read\n${DEMO_WRITER} read,write demo\n`);
  ursa = await startUrsa({ args: ["--token-file", file] });
  for (const path of ["/demo/orders", "/private/ledger"]) {
    expect((await admin(path, { method: "PUT", headers: { "Content-Type": "application/json" } })).status).toBe(201);
    expect((await admin(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: '[{"n":1},{"n":2}]' })).status).toBe(204);
  }
});

test.afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function signIn(page: Page, token: string, at = "/ui/buckets"): Promise<void> {
  await page.goto(ursa.url + at);
  const dialog = page.getByTestId("token-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Bearer token").fill(token);
  await dialog.getByRole("button", { name: "Use token" }).click();
  await expect(dialog).toBeHidden();
}

test("asks for a token, then works; the token stays in this tab and out of the timeline", async ({ page }) => {
  await page.goto(`${ursa.url}/ui/buckets`);
  const dialog = page.getByTestId("token-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText("This ursa checks a bearer token on every request");
  expect(await axeViolations(page, "dialog[open]")).toEqual([]);
  await shot(page, screenshotPath("console-auth-token-dialog-1280"));
  // A wrong token is refused by the server, and nothing is kept.
  await dialog.getByLabel("Bearer token").fill("not-a-token-of-this-server");
  await dialog.getByRole("button", { name: "Use token" }).click();
  await expect(dialog.getByTestId("token-error")).toContainText("The server refused this token");
  expect(await page.evaluate(() => sessionStorage.getItem("ursa.token"))).toBeNull();
  await dialog.getByLabel("Bearer token").fill(ADMIN);
  await dialog.getByRole("button", { name: "Use token" }).click();
  await expect(dialog).toBeHidden();
  // The page read again with it: both buckets, and the sidebar says what the token may do.
  const buckets = page.getByRole("table").first().locator("tbody tr");
  await expect(buckets).toHaveText([/demo/, /private/]);
  await expect(page.getByTestId("access-scopes")).toHaveText("read, write, admin");
  await expect(page.getByTestId("access-buckets")).toHaveText("all");

  // A write from the stream page, with a live tail open: the tail reads over SSE with the token.
  await page.goto(`${ursa.url}/ui/s/demo/orders?tab=tail`);
  await page.getByRole("button", { name: "Start live tail" }).click();
  await page.getByRole("button", { name: "Append…" }).click();
  const append = page.getByTestId("append-dialog");
  await append.getByRole("textbox", { name: /^Body/ }).fill('[{"n":3}]');
  await append.getByRole("checkbox", { name: /Stream-Seq/ }).uncheck();
  await append.getByRole("button", { name: "Append", exact: true }).click();
  await expect(append.getByTestId("action-result")).toHaveAttribute("data-status", "204");
  await page.keyboard.press("Escape");
  await expect(page.locator("#panel-tail")).toContainText('"n": 3');
  // The tail's "Copy as EventSource" is the browser's own reader: the token goes in access_token.
  await page.getByRole("button", { name: "Copy as EventSource" }).click();
  const es = await page.evaluate(() => navigator.clipboard.readText());
  expect(es).toContain("&access_token=${encodeURIComponent(URSA_TOKEN)}");
  expect(es).not.toContain(ADMIN);
  // The console's CSP allows no eval: the snippet's URL is filled in as the snippet would fill it.
  const template = /new EventSource\(`([^`]+)`\)/.exec(es)![1]!;
  const url = template.replace("${encodeURIComponent(URSA_TOKEN)}", encodeURIComponent(ADMIN));
  await page.evaluate((u) => {
    const w = window as unknown as { got: string[]; es: EventSource };
    w.got = [];
    w.es = new EventSource(u);
    w.es.addEventListener("data", (e) => w.got.push((e as MessageEvent<string>).data));
  }, url);
  await expect.poll(() => page.evaluate(() => (window as unknown as { es: EventSource }).es.readyState)).toBe(1);
  expect((await admin("/demo/orders", { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"n":"es"}' })).status).toBe(204);
  await expect.poll(() => page.evaluate(() => (window as unknown as { got: string[] }).got.join(""))).toContain('"es"');
  await page.evaluate(() => (window as unknown as { es: EventSource }).es.close());
  expect(await (await admin("/demo/orders?offset=-1")).json()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: "es" }]);

  // The timeline keeps the exchange without the token; its curl names $URSA_TOKEN and works.
  await page.goto(`${ursa.url}/ui/timeline`);
  const attempt = page.locator("li.attempt", { hasText: "POST/demo/orders" }).first();
  await attempt.locator("button.attempt-line").click();
  await page.locator(".attempt-detail").getByRole("button", { name: "Copy as curl" }).click();
  const curl = await page.evaluate(() => navigator.clipboard.readText());
  expect(curl).toContain(`-H 'Authorization: Bearer '"$URSA_TOKEN"`);
  expect(curl).not.toContain(ADMIN);
  expect(curlStatus(sh(`URSA_TOKEN=${ADMIN}; ${curl}`))).toBe(204);
  const stored = await page.evaluate(() => ({ local: JSON.stringify({ ...localStorage }), session: sessionStorage.getItem("ursa.token") }));
  expect(stored.local).not.toContain(ADMIN);
  expect(stored.local).toContain("/demo/orders");
  expect(stored.session).toBe(ADMIN);

  // Forget it: gone from the tab, and the server asks again.
  await page.getByRole("button", { name: "Forget token" }).click();
  await expect(page.getByTestId("token-dialog")).toBeVisible();
  expect(await page.evaluate(() => sessionStorage.getItem("ursa.token"))).toBeNull();
});

test("a read token: every page works, write actions say what they need, and nothing is written", async ({ page }) => {
  const before = await (await admin("/__ursula/api/streams/demo/orders")).json();
  await signIn(page, READER, "/ui/s/demo/orders");
  await expect(page.getByTestId("read-only")).toBeVisible();
  await expect(page.locator('[data-field="message_count"]')).toHaveText(String(before.message_count));
  for (const name of ["Append…", "Close…", "Delete…", "Publish snapshot…", "Advance retention…"]) await expect(page.getByRole("button", { name })).toBeDisabled();
  const header = page.locator(".page-head [data-testid=need-note]");
  await expect(header).toContainText("Append, close needs the write scope: this token has read.");
  await expect(header).toContainText("Delete needs the admin scope: this token has read.");
  await expect(page.locator("#compaction [data-testid=need-note]")).toContainText("Advancing retention needs the admin scope");
  // The attributes can be looked at, not saved.
  await page.getByRole("button", { name: "View attributes…" }).click();
  const attrs = page.getByTestId("attrs-dialog");
  await expect(attrs.getByRole("button", { name: "Save attributes" })).toBeDisabled();
  await expect(attrs.getByTestId("need-note")).toContainText("Saving attributes needs the write scope");
  expect(await axeViolations(page, "dialog[open]")).toEqual([]);
  await page.keyboard.press("Escape");
  await shot(page, screenshotPath("console-auth-read-only-stream-1280"));
  expect(await axeViolations(page)).toEqual([]);

  // Labs and the demo cannot run with it, and say why.
  await page.goto(`${ursa.url}/ui/lab/compaction`);
  await expect(page.getByRole("button", { name: "Run all" })).toBeDisabled();
  await expect(page.getByTestId("need-note")).toContainText("needs the write scope");
  await page.goto(`${ursa.url}/ui/`);
  await expect(page.getByRole("button", { name: "Create the demo bucket" })).toBeDisabled();

  // The composer still sends what you ask, and explains the refusal in its own words.
  await page.goto(`${ursa.url}/ui/compose?target=${encodeURIComponent("/demo/orders")}`);
  await expect(page.getByTestId("need-note")).toContainText("This request needs the write scope: this token has read");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("403");
  await expect(page.getByTestId("cause")).toHaveAttribute("data-cause", "403-scope");
  await expect(page.getByTestId("cause")).toContainText("Not allowed with this token: this needs the write scope, and the token has read. Nothing was changed.");
  // Reads work: the server page and its metrics (read on every bucket).
  await page.goto(`${ursa.url}/ui/server`);
  await expect(page.locator('[data-field="readiness"]')).toHaveText("ready");
  await expect(page.locator('[data-field="commit_latency"]')).toContainText(/µs|ms/);

  // Nothing of any of it reached the server.
  const after = await (await admin("/__ursula/api/streams/demo/orders")).json();
  expect({ tail: after.tail_offset, count: after.message_count, attrs: after.attrs, snapshot: after.snapshot, floor: after.retained_offset }).toEqual({
    tail: before.tail_offset,
    count: before.message_count,
    attrs: before.attrs,
    snapshot: before.snapshot,
    floor: before.retained_offset,
  });
});

test("a token limited to one bucket sees only that bucket; the others are a 404 it cannot see past", async ({ page }) => {
  await signIn(page, DEMO_WRITER);
  await expect(page.getByRole("table").first().locator("tbody tr")).toHaveText([/demo/]);
  await expect(page.getByTestId("access-buckets")).toHaveText("demo");
  // In its bucket it may append, not delete.
  await page.goto(`${ursa.url}/ui/s/demo/orders`);
  await expect(page.getByRole("button", { name: "Append…" })).toBeEnabled();
  await expect(page.getByRole("button", { name: "Delete…" })).toBeDisabled();
  // Another bucket's stream, which exists, answers as a missing one would; the console says why.
  await page.goto(`${ursa.url}/ui/s/private/ledger`);
  await expect(page.getByRole("alert")).toContainText("does not exist (404 STREAM_NOT_FOUND)");
  await expect(page.getByTestId("concealed")).toContainText("This token can see only demo. For anything in bucket private the server answers 404 whether it exists or not");
  await page.goto(`${ursa.url}/ui/compose?target=${encodeURIComponent("/private/ledger")}`);
  await page.getByLabel("Method").selectOption("GET");
  await page.getByRole("button", { name: "Send" }).click();
  await expect(page.getByTestId("response-status")).toHaveText("404");
  await expect(page.getByTestId("cause")).toContainText("404, and this token cannot tell you more");
  // Server-wide metrics are not for a token limited to buckets.
  await page.goto(`${ursa.url}/ui/server`);
  await expect(page.getByTestId("metrics-refused")).toHaveAttribute("data-status", "403");
  await shot(page, screenshotPath("console-auth-bucket-limited-server-1280"));
  expect(await axeViolations(page)).toEqual([]);
});

test("with --public-read the console reads without asking, and says writes need a token", async ({ page }) => {
  const open = await startUrsa({ args: ["--token-file", join(dir, "tokens.txt"), "--public-read"] });
  try {
    const auth = { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" };
    expect((await fetch(`${open.url}/demo/orders`, { method: "PUT", headers: auth })).status).toBe(201);
    expect((await fetch(`${open.url}/demo/orders`, { method: "POST", headers: auth, body: '[{"n":1}]' })).status).toBe(204);
    await page.goto(`${open.url}/ui/s/demo/orders`);
    await expect(page.getByRole("list", { name: "Messages" }).locator("li")).toHaveCount(1);
    await expect(page.getByTestId("access-token")).toHaveText("none: public reads");
    await expect(page.getByRole("button", { name: "Append…" })).toBeDisabled();
    await expect(page.locator(".page-head [data-testid=need-note]")).toContainText("needs a token with the write scope: this console has none");
    // Metrics are server-wide: refused, and explained, without a prompt on every visit.
    await page.goto(`${open.url}/ui/server`);
    await expect(page.getByTestId("metrics-refused")).toHaveAttribute("data-status", "401");
    await expect(page.getByTestId("token-dialog")).toBeHidden();
  } finally {
    await open.stop();
    open.cleanup();
  }
});
