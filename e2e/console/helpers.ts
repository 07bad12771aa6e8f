// Helpers shared by the console specs: unique names (one binary serves a whole worker, so
// specs must not collide), protocol calls made outside the browser, and running shell
// snippets the way a user pasting them would.
import { execFileSync } from "node:child_process";
import type { APIRequestContext } from "@playwright/test";

export function uniq(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
}

export async function put(request: APIRequestContext, path: string, headers: Record<string, string> = {}, data?: string) {
  const res = await request.put(path, { headers: { "Content-Type": "application/json", ...headers }, data });
  if (res.status() !== 201) throw new Error(`PUT ${path}: ${res.status()} ${await res.text()}`);
  return res;
}

export async function post(request: APIRequestContext, path: string, data: string, headers: Record<string, string> = {}) {
  return request.post(path, { headers: { "Content-Type": "application/json", ...headers }, data });
}

/** Run a shell command line (e.g. a copied curl snippet) and return stdout. */
export function sh(commandLine: string): string {
  return execFileSync("bash", ["-c", commandLine], { encoding: "utf8", timeout: 15_000, stdio: ["ignore", "pipe", "pipe"] });
}

/** The status of the last HTTP response in `curl -i` output. */
export function curlStatus(output: string): number {
  const lines = output.split(/\r?\n/).filter((l) => /^HTTP\/[\d.]+ \d{3}/.test(l));
  const last = lines[lines.length - 1];
  if (!last) throw new Error(`no status line in curl output:\n${output}`);
  return Number(last.split(" ")[1]);
}

/** Full-page screenshot from the top (the sticky sidebar would otherwise sit where the page was scrolled). */
export async function shot(page: import("@playwright/test").Page, path: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  // Two frames: lists that render only the rows in view re-render for the new scroll position.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path, fullPage: true });
}

/** What is on screen, as it is (a modal dialog covers the viewport, not the whole page). */
export async function shotView(page: import("@playwright/test").Page, path: string): Promise<void> {
  await page.screenshot({ path });
}
