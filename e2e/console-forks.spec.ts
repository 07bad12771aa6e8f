// The fork view: a stream's source chain and its forks drawn as a tree, each with the offset it
// starts at (the introspection API's fork_offset and the PUT's Stream-Fork-Offset), the fork
// offsets marked on the offset bar, and a deleted source kept in the tree while forks share it.
import { test, expect, screenshotPath } from "./fixtures.ts";
import { put, shot, uniq } from "./console/helpers.ts";

test("a fork family as a tree, with fork offsets on the tree and the offset bar", async ({ page, request }) => {
  const bucket = uniq("fork");
  const src = `/${bucket}/orders`;
  await put(request, src);
  const first = await request.post(src, { headers: { "Content-Type": "application/json" }, data: '[{"o":1},{"o":2}]' });
  const afterFirst = first.headers()["stream-next-offset"]!;
  await request.post(src, { headers: { "Content-Type": "application/json" }, data: '[{"o":3}]' });
  const tail = (await request.head(src)).headers()["stream-next-offset"]!;
  const fork = (name: string, from: string, offset?: string) =>
    put(request, `/${bucket}/${name}`, { "Stream-Forked-From": from, ...(offset ? { "Stream-Fork-Offset": offset } : {}) });
  await fork("replay", src, afterFirst);
  await fork("audit", src);
  await request.post(`/${bucket}/replay`, { headers: { "Content-Type": "application/json" }, data: '[{"o":"r1"}]' });
  const replayTail = (await request.head(`/${bucket}/replay`)).headers()["stream-next-offset"]!;
  await fork("replay-2", `/${bucket}/replay`, replayTail);

  await page.goto(`/ui/s/${bucket}/orders`);
  const tree = page.getByTestId("fork-tree");
  const node = (name: string) => tree.locator(`li.fork-node[data-path="/${bucket}/${name}"]`);
  await expect(node("orders")).toBeVisible();
  await expect(node("orders").locator("> .fork-line [aria-current]")).toHaveText("orders");
  // Children under their source, each with the offset it forked at.
  const pos = (token: string) => Number(token.split("_")[1]).toLocaleString("en-US");
  await expect(node("orders").locator("> ul > li")).toHaveCount(2);
  await expect(node("replay").locator("> .fork-line").getByTestId("fork-offset")).toHaveText(`forked at ${pos(afterFirst)}`);
  await expect(node("audit").locator("> .fork-line").getByTestId("fork-offset")).toHaveText(`forked at ${pos(tail)}`);
  await expect(node("replay").locator("> ul > li")).toHaveCount(1);
  await expect(node("replay-2").locator("> .fork-line").getByTestId("fork-offset")).toHaveText(`forked at ${pos(replayTail)}`);
  const api = await (await request.get(`/__ursula/api/streams/${bucket}/replay-2/forks`)).json();
  expect(api.lineage).toEqual([src, `/${bucket}/replay`, `/${bucket}/replay-2`]);
  // The offset bar marks where the forks start.
  const marks = page.locator(".offset-bar .marker.fork");
  expect((await marks.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-fork-at"))))).sort((a, b) => a - b)).toEqual(
    [Number(afterFirst.split("_")[1]), Number(tail.split("_")[1])].sort((a, b) => a - b),
  );
  await expect(page.getByTestId("fork-marks")).toContainText(`replay at ${pos(afterFirst)}`);
  await shot(page, screenshotPath("console-forks-source-1280"));

  // From a grandchild: the same family, this stream marked, its inherited bytes on the bar.
  await node("replay").locator("> ul").getByRole("link", { name: "replay-2" }).click();
  await expect(page).toHaveURL(new RegExp(`/ui/s/${bucket}/replay-2$`));
  await expect(node("replay-2").locator("> .fork-line [aria-current]")).toHaveText("replay-2");
  await expect(page.locator(".offset-bar .seg.inherited")).toBeVisible();
  await expect(page.locator('[data-field="fork"]')).toHaveText(`${bucket}/replay`);

  // Deleting the first source keeps it as a node while its forks share its bytes.
  expect((await request.delete(src)).status()).toBe(204);
  await page.reload();
  await expect(node("orders").locator("> .fork-line")).toContainText("deleted source");
  await shot(page, screenshotPath("console-forks-grandchild-1280"));
  await page.setViewportSize({ width: 1920, height: 1080 });
  await shot(page, screenshotPath("console-forks-grandchild-1920"));
});
