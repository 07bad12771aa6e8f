// The ursa-client suite (e2e/client-suite.ts) in a real browser: a page on an origin of its own
// (e2e/page-server.ts) loads the package's built ESM through an import map, exactly the files
// `npm pack` ships, and drives a second binary that lists the page's origin with --cors-origins,
// as a deployment that lets a web app write would.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Page } from "@playwright/test";
import { test, expect, screenshotPath } from "./fixtures.ts";
import { pageServer, type PageServer } from "./page-server.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";
import type { ScenarioName } from "./client-suite.ts";

const root = resolve(import.meta.dirname, "..");
const dist = join(root, "clients/ts/dist");

let site: PageServer;
let server: UrsaProcess;
let built: string;

test.beforeAll(async () => {
  // The package as it ships (tsc into clients/ts/dist), and the suite compiled to plain JS with
  // "ursa-client" left as an import for the page's import map to resolve.
  execFileSync("npm", ["run", "build", "--silent"], { cwd: join(root, "clients/ts"), stdio: ["ignore", "pipe", "inherit"] });
  built = mkdtempSync(join(tmpdir(), "ursa-client-browser-"));
  execFileSync(join(root, "node_modules/.bin/bun"), ["build", join(root, "e2e/client-suite.ts"), "--external", "ursa-client", "--format", "esm", "--outfile", join(built, "suite.js")], { stdio: ["ignore", "pipe", "inherit"] });
  site = await pageServer();
  server = await startUrsa({ args: ["--cors-origins", `http://127.0.0.1:${site.port}`] });
});

test.afterAll(async () => {
  await site?.close();
  await server?.stop();
  server?.cleanup();
  if (built) rmSync(built, { recursive: true, force: true });
});

const js = (body: string | Buffer) => ({ status: 200, contentType: "text/javascript", body });

/**
 * The page server's own (empty) page, so the page lives at a loopback address as the binary does
 * (a page fulfilled by Playwright has no address, and Chromium's local network access checks then
 * refuse its requests to 127.0.0.1). The package's dist/, its one dependency and the suite are
 * served beside it, and an import map names them before any module loads.
 */
async function openSuitePage(page: Page): Promise<void> {
  const origin = `http://127.0.0.1:${site.port}`;
  await page.route(`${origin}/pkg/**`, (route) => route.fulfill(js(readFileSync(join(dist, new URL(route.request().url()).pathname.slice("/pkg/".length))))));
  await page.route(`${origin}/deps/eventsource-parser.js`, (route) => route.fulfill(js(readFileSync(join(root, "node_modules/eventsource-parser/dist/index.js")))));
  await page.route(`${origin}/suite.js`, (route) => route.fulfill(js(readFileSync(join(built, "suite.js")))));
  await page.goto(`${origin}/`);
  await page.evaluate(() => {
    const map = document.createElement("script");
    map.type = "importmap";
    map.textContent = JSON.stringify({ imports: { "ursa-client": "/pkg/index.js", "eventsource-parser": "/deps/eventsource-parser.js" } });
    document.head.append(map);
    document.body.innerHTML = '<h1>ursa-client suite</h1><ol id="results"></ol>';
  });
}

/** Runs one scenario in the page and lists its line there; a broken rule rejects with its message. */
function runInPage(page: Page, name: ScenarioName): Promise<string> {
  return page.evaluate(
    async ([scenario, base]) => {
      const suite = (await import("/suite.js" as string)) as { scenarios: Record<string, (base: string) => Promise<string>> };
      const line = await suite.scenarios[scenario]!(base);
      const item = document.createElement("li");
      item.textContent = `${scenario}: ${line}`;
      document.getElementById("results")!.append(item);
      return line;
    },
    [name, server.url] as const,
  );
}

test("ursa-client in chromium: the prefix-count race, the outbox takeover, a recreated stream and a compaction, against the binary", async ({ page }) => {
  test.setTimeout(90_000);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await openSuitePage(page);
  expect(await runInPage(page, "prefixCount")).toMatch(/^400 commits, \d+ events, \d+ Stream-Seq 409s retried$/);
  expect(await runInPage(page, "outbox")).toBe("100 facts once and in order; B skipped 2, A fenced at epoch 2");
  expect(await runInPage(page, "incarnation")).toMatch(/^writer, long-poll reader and SSE subscriber refused with 412/);
  expect(await runInPage(page, "compaction")).toBe("compacted at count 6; new writer committed at 6, first writer at 7");
  await expect(page.locator("#results li")).toHaveCount(4);
  expect(errors).toEqual([]);
  await page.screenshot({ path: screenshotPath("client-package-browser") });
});
