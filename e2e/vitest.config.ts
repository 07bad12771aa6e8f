// The Node-side e2e run: the official conformance suite, the official client and the
// restart/crash tests, all against the compiled binary (dist/ursa, or $URSA_BINARY).
// Playwright specs (*.spec.ts) and bun unit tests are other runners; the include keeps them out.
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

const root = resolve(import.meta.dirname, "..");

export default defineConfig({
  test: {
    root,
    // Any *.test.ts under e2e/ (e.g. e2e/client-package.test.ts) runs here: a test no runner picks up is worse
    // than one that fails loudly.
    include: ["e2e/**/*.test.ts"],
    environment: "node",
    // One file at a time: each file starts its own binary, and on 2 cores a kill -9 write storm
    // next to the conformance suite's 5 s timing budgets (TTL expiry, long-poll) causes flakes.
    fileParallelism: false,
    // The conformance suite is written against vitest's default 5 s; keep it so a server that
    // is slow to answer fails here as it would upstream. Our own tests set their own budgets.
    testTimeout: 5_000,
    hookTimeout: 20_000,
    reporters: ["default", ["junit", { outputFile: resolve(root, "reports/conformance-junit.xml") }]],
  },
});
