// The console's budget (issue 19): the JavaScript a first visit downloads, as the compiled binary
// serves it gzipped, stays under 100 KB. Measured on the wire, not on the build's files, so a
// second chunk or a lost precompression counts too.
import http from "node:http";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

let ursa: UrsaProcess;
beforeAll(async () => {
  ursa = await startUrsa();
});
afterAll(async () => {
  await ursa?.stop();
  ursa?.cleanup();
});

function gzippedBytes(url: string): Promise<{ encoding: string | undefined; bytes: number }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { "Accept-Encoding": "gzip" } }, (res) => {
        let bytes = 0;
        res.on("data", (c: Buffer) => (bytes += c.length));
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], bytes }));
      })
      .on("error", reject);
  });
}

test("a first visit downloads under 100 KB of gzipped JavaScript", async () => {
  const page = await (await fetch(`${ursa.url}/ui/`)).text();
  const scripts = [...page.matchAll(/(?:src|href)="(\/ui\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  expect(scripts.length).toBeGreaterThan(0);
  let total = 0;
  for (const path of scripts) {
    const { encoding, bytes } = await gzippedBytes(ursa.url + path);
    expect(encoding).toBe("gzip");
    total += bytes;
  }
  console.log(`console JavaScript: ${scripts.length} file(s), ${(total / 1000).toFixed(1)} KB gzipped`);
  expect(total).toBeGreaterThan(10_000);
  expect(total).toBeLessThan(100_000);
});
