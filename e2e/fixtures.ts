// Playwright fixtures for every e2e/*.spec.ts: one compiled binary per worker, on a fresh data
// directory and a kernel-picked port, with baseURL pointing at it so page.goto("/ui/") works.
// Specs import { test, expect } from here instead of from @playwright/test.
import { resolve } from "node:path";
import { test as base } from "@playwright/test";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

export interface UrsaWorkerFixtures {
  /** The running binary shared by all tests of this worker: url, dataDir, log(). */
  ursa: UrsaProcess;
}

export const test = base.extend<{}, UrsaWorkerFixtures>({
  ursa: [
    async ({}, use) => {
      const ursa = await startUrsa();
      await use(ursa);
      const code = await ursa.stop();
      ursa.cleanup();
      // A binary that crashed or hung on SIGTERM while the browser drove it would otherwise
      // go unnoticed; failing the teardown makes Playwright report it.
      if (code !== 0) throw new Error(`ursa exited with ${code} on SIGTERM:\n${ursa.log()}`);
    },
    { scope: "worker", timeout: 20_000 },
  ],
  baseURL: async ({ ursa }, use) => use(ursa.url),
});

export { expect } from "@playwright/test";

/** Where specs save screenshots (git-ignored), so they survive the run for a human to look at. */
export function screenshotPath(name: string): string {
  return resolve(import.meta.dirname, "screenshots", `${name}.png`);
}
