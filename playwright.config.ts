// Browser tests of the console in the compiled binary, in Debian's chromium (no Playwright
// browser download on these machines). Each worker starts its own binary: see e2e/fixtures.ts.
import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "e2e",
  testMatch: "*.spec.ts",
  fullyParallel: false,
  workers: 1,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  // list for the log, junit for scripts/junit-summary.mjs; the html report only locally.
  reporter: process.env.CI
    ? [["list"], ["junit", { outputFile: "reports/e2e-junit.xml" }]]
    : [
        ["list"],
        ["junit", { outputFile: "reports/e2e-junit.xml" }],
        ["html", { open: "never", outputFolder: "reports/playwright-html" }],
      ],
  outputDir: "test-results",
  use: {
    browserName: "chromium",
    headless: true,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      // Playwright adds --headless/--no-sandbox/--no-first-run itself; these keep Debian's
      // chromium off the network and quiet (stack.md pitfall 9).
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
