// A full disk: writes get 507 STORAGE_FULL with nothing of them committed, never a 500, and the
// server takes writes again once there is room. SQLite's max_page_count stands in for the disk:
// a write past it fails as SQLITE_FULL, exactly as one the disk refuses with ENOSPC.

import { expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { harness } from "../testing/app-harness";
import { inTempDir } from "../testing/temp-dir";

test("a full disk refuses writes with 507 and commits nothing; once there is room they succeed", async () => {
  await inTempDir(async (dir) => {
    const h = harness({ path: join(dir, "ursa.sqlite") });
    try {
      // The store's own connection: max_page_count is per connection.
      const db = (h.store as unknown as { db: Database }).db;
      const append = (body: string) => h.request("POST", "/full-b/s", { headers: { "Content-Type": "text/plain" }, body });
      expect((await h.request("PUT", "/full-b/s", { headers: { "Content-Type": "text/plain" } })).status).toBe(201);
      const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
      db.exec(`PRAGMA max_page_count = ${pages + 4}`);

      let refused: Response | undefined;
      let stored = "";
      for (let i = 0; i < 40 && !refused; i++) {
        const body = String.fromCharCode(97 + (i % 26)).repeat(8192);
        const before = h.fingerprint("full-b/s");
        const res = await append(body);
        if (res.status === 204) stored += body;
        else {
          refused = res;
          expect(h.fingerprint("full-b/s")).toBe(before);
        }
      }
      expect(refused?.status).toBe(507);
      expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe("STORAGE_FULL");

      // Writes sharing one transaction are each refused alone, and none of them lands.
      const before = h.fingerprint("full-b/s");
      const burst = await Promise.all(["1", "2", "3", "4"].map((n) => append(n.repeat(8192))));
      expect(burst.map((r) => r.status)).toEqual([507, 507, 507, 507]);
      expect(h.fingerprint("full-b/s")).toBe(before);

      db.exec(`PRAGMA max_page_count = ${pages + 1000}`);
      expect((await append("room again")).status).toBe(204);
      const read = await h.request("GET", "/full-b/s?offset=-1");
      expect(await read.text()).toBe(stored + "room again");
    } finally {
      await h.close();
    }
  });
});
