// A listing page takes a read turn (read-turns.ts), so several listings run one per pass of the
// event loop and a request arriving between them is read after at most one page.

import { expect, test } from "bun:test";
import { harness } from "../testing/app-harness";

test.each([
  ["GET /{bucket}/streams", "/page-turns/streams?limit=2", "streams"],
  ["the console's browse", "/__ursula/api/buckets/page-turns/streams?limit=2", "streams"],
])("listing pages (%s) run one per pass of the event loop, with other work between any two", async (_, url, field) => {
  const h = harness();
  try {
    for (const name of ["a", "b", "c"]) expect((await h.request("PUT", `/page-turns/${name}`, { headers: { "content-type": "text/plain" } })).status).toBe(201);
    const events: string[] = [];
    let counting = true;
    const count = () => {
      if (!counting) return;
      events.push("pass");
      setImmediate(count);
    };
    setImmediate(count);
    const list = async (name: string) => {
      const r = await h.request("GET", url);
      expect(r.status).toBe(200);
      expect(((await r.json()) as Record<string, { stream_id: string }[]>)[field]!.map((s) => s.stream_id)).toEqual(["a", "b"]);
      events.push(name);
    };
    await Promise.all([list("x"), list("y"), list("z")]);
    counting = false;
    const pages = events.filter((e) => e !== "pass");
    expect(pages.sort()).toEqual(["x", "y", "z"]);
    // No two pages in the same pass: other work runs between any two. (The first may run at once,
    // before any pass, as a lone reader's turn is granted in the pass it asks in.)
    const at = events.flatMap((e, i) => (e === "pass" ? [] : [i]));
    for (let k = 1; k < at.length; k++) expect(events.slice(at[k - 1]! + 1, at[k]!)).toContain("pass");
  } finally {
    await h.close();
  }
});
