// The official Durable Streams conformance suite (338 tests, the 6 opt-in subscription tests
// among them) against a freshly started compiled binary. The subscription tests name streams
// `{bucket}/{stream}` on /v1/stream/ (--v1-bucket-paths) and run their webhook receivers on
// 127.0.0.1, which webhooks may call only when allowed (--webhook-allow-hosts).
// Its CLI is broken as published (conformance.md §2.2); calling it from our own vitest file works.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { runConformanceTests } from "@durable-streams/server-conformance-tests";
import { LONG_POLL_TIMEOUT_MS, startUrsa, type UrsaProcess } from "./server-process.ts";

describe("ursa binary", () => {
  // The suite reads baseUrl lazily, so the object can be filled in once the port is known.
  const config = { baseUrl: "", longPollTimeoutMs: LONG_POLL_TIMEOUT_MS, subscriptions: true };
  let ursa: UrsaProcess | undefined;

  beforeAll(async () => {
    ursa = await startUrsa({ args: ["--v1-bucket-paths", "--webhook-allow-hosts", "127.0.0.1"] });
    config.baseUrl = ursa.url;
  });

  afterAll(async () => {
    await ursa?.stop();
    ursa?.cleanup();
  });

  runConformanceTests(config);

  // Registered last, so it runs after the suite: a server that crashed half-way would otherwise
  // show up only as a wall of connection errors, and one that hangs on SIGTERM not at all.
  test("the binary survived the suite and exits 0 on SIGTERM", async () => {
    expect(ursa!.child.exitCode, ursa!.log()).toBeNull();
    expect(await ursa!.stop(), ursa!.log()).toBe(0);
  });
});
