// Who reads a stream: while an SSE client reads it, the stream page lists that reader with its
// address, its offset and how far behind the tail it is; the bucket list sorts by live readers.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { post, put, uniq } from "./console/helpers.ts";

/** An SSE reader held open from outside the browser until `close` is called. */
async function sseReader(url: string) {
  const ctrl = new AbortController();
  const res = await fetch(url, { signal: ctrl.signal });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const pump = (async () => {
    try {
      for (;;) if ((await reader.read()).done) return;
    } catch {
      // aborted by close()
    }
  })();
  return {
    close: async () => {
      ctrl.abort();
      await pump;
    },
  };
}

test("an SSE client reading the stream shows on its page, with its offset and lag; the bucket list sorts by readers", async ({ page, request, baseURL }) => {
  const prefix = uniq("readers");
  const [quiet, read] = [`${prefix}-a`, `${prefix}-z`];
  await put(request, `/${quiet}/s`);
  await put(request, `/${read}/s`);
  expect((await post(request, `/${read}/s`, '[{"n":1},{"n":2}]')).status()).toBe(204);
  const tail = (await request.head(`/${read}/s`)).headers()["stream-next-offset"]!;

  const sse = await sseReader(`${baseURL}/${read}/s?offset=-1&live=sse`);
  try {
    await page.goto(`/ui/s/${read}/s`);
    const readers = page.getByRole("list", { name: "Live readers" });
    const row = readers.locator('li.reader[data-kind="sse"]');
    await expect(row).toHaveCount(1, { timeout: 10_000 });
    await expect(row.getByTestId("reader-address")).toHaveText("127.0.0.1");
    await expect(row).toContainText(tail);
    await expect(row.getByTestId("reader-behind")).toHaveText("at the tail");
    await expect(page.getByTestId("readers-summary")).toHaveText("1 live reader.");
    await page.locator("section#readers").screenshot({ path: screenshotPath("console-stream-readers") });

    // Sorted by readers, the bucket with a reader comes first; by name, it does not.
    await page.goto(`/ui/buckets?prefix=${prefix}&sort=readers`);
    const rows = page.locator("tbody tr[data-bucket]");
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toHaveAttribute("data-bucket", read);
    await expect(rows.first().locator('[data-col="live_readers"]')).toHaveText("1");
    await page.getByLabel("Sort buckets by").selectOption("name");
    await expect(page).not.toHaveURL(/sort=readers/);
    await expect(rows.first()).toHaveAttribute("data-bucket", quiet);
  } finally {
    await sse.close();
  }
  // The reader is gone once it stops reading.
  await page.goto(`/ui/s/${read}/s`);
  await expect(page.getByTestId("readers-summary")).toHaveText(/^No live reader/, { timeout: 10_000 });
});
