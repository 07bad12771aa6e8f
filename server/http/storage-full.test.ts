// A full disk: writes get 507 STORAGE_FULL with nothing of them committed, never a 500, deletes
// and retention still work and give their space to new writes, and the server takes writes again
// once there is room. SQLite's max_page_count stands in for the disk: a write past it fails as
// SQLITE_FULL, exactly as one the disk refuses with ENOSPC. (e2e/disk-full.test.ts fills a real one.)

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
        const before = await h.fingerprint("full-b/s");
        const res = await append(body);
        if (res.status === 204) stored += body;
        else {
          refused = res;
          expect(await h.fingerprint("full-b/s")).toBe(before);
        }
      }
      expect(refused?.status).toBe(507);
      expect(((await refused!.json()) as { error: { code: string } }).error.code).toBe("STORAGE_FULL");

      // Writes sharing one transaction are each refused alone, and none of them lands.
      const before = await h.fingerprint("full-b/s");
      const burst = await Promise.all(["1", "2", "3", "4"].map((n) => append(n.repeat(8192))));
      expect(burst.map((r) => r.status)).toEqual([507, 507, 507, 507]);
      expect(await h.fingerprint("full-b/s")).toBe(before);

      // Room again. Writes that add data are refused, untried, until the store has seen the room
      // for itself (its probe, at most a second later): a full store lets them in only then.
      db.exec(`PRAGMA max_page_count = ${pages + 1000}`);
      expect((await append("too soon")).status).toBe(507);
      expect(await h.fingerprint("full-b/s")).toBe(before);
      let ready = 503;
      for (let i = 0; i < 30 && ready !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        ready = (await h.request("GET", "/__ursula/ready")).status;
      }
      expect(ready).toBe(200);
      expect((await append("room again")).status).toBe(204);
      const read = await h.request("GET", "/full-b/s?offset=-1");
      expect(await read.text()).toBe(stored + "room again");
    } finally {
      await h.close();
    }
  });
});

/** Writes 8 KiB appends to `path` until one is refused; the status of the refusal. */
async function fill(h: ReturnType<typeof harness>, path: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const res = await h.request("POST", path, { headers: { "Content-Type": "text/plain" }, body: "f".repeat(8192) });
    if (res.status !== 204) return res.status;
  }
  throw new Error("never full");
}

async function untilReady(h: ReturnType<typeof harness>): Promise<number> {
  let status = 503;
  for (let i = 0; i < 40 && status !== 200; i++) {
    await new Promise((r) => setTimeout(r, 100));
    status = (await h.request("GET", "/__ursula/ready")).status;
  }
  return status;
}

test.each(["delete", "retention"])("on a full disk, %s is let through and the space it frees takes new writes", async (how) => {
  await inTempDir(async (dir) => {
    const h = harness({ path: join(dir, "ursa.sqlite") });
    try {
      const db = (h.store as unknown as { db: Database }).db;
      const TEXT = { "Content-Type": "text/plain" };
      const append = (s: string) => h.request("POST", `/full-b/${s}`, { headers: TEXT, body: s[0]!.repeat(8192) });
      for (const s of ["big", "small"]) expect((await h.request("PUT", `/full-b/${s}`, { headers: TEXT })).status).toBe(201);
      const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
      db.exec(`PRAGMA max_page_count = ${pages + 100}`);
      // 240 KiB in the stream that will be dropped, a snapshot at its tail (retention cannot pass
      // one), then the rest of the room to the other stream.
      for (let i = 0; i < 30; i++) expect((await append("big")).status).toBe(204);
      const bigTail = (await h.request("HEAD", "/full-b/big")).headers.get("Stream-Next-Offset")!;
      expect((await h.request("PUT", `/full-b/big/snapshot/${bigTail}`, { headers: TEXT, body: "state" })).status).toBe(204);
      expect(await fill(h, "/full-b/small")).toBe(507);
      expect((await h.request("GET", "/__ursula/ready")).status).toBe(503);
      const smallBefore = await h.fingerprint("full-b/small");
      // Reads keep working while full, and writes that add data are refused whole.
      expect((await h.request("GET", "/full-b/big?offset=-1&max_bytes=16384")).status).toBe(200);
      expect((await append("small")).status).toBe(507);
      expect(await h.fingerprint("full-b/small")).toBe(smallBefore);

      if (how === "delete") expect((await h.request("DELETE", "/full-b/big")).status).toBe(204);
      else {
        expect((await h.request("PUT", `/full-b/big/retention/${bigTail}`)).status).toBe(204);
        await h.store.reclaimed();
      }
      // The freed pages are the room the probe finds: writes resume without any other change.
      expect(await untilReady(h)).toBe(200);
      let appended = 0;
      while (appended < 20 && (await append("small")).status === 204) appended++;
      expect(appended).toBe(20);
    } finally {
      await h.close();
    }
  });
});
