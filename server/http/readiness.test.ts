// /__ursula/ready: 200 only while the store takes writes. SQLite's max_page_count stands in for a
// full disk (a write past it fails as SQLITE_FULL, exactly as one the disk refuses with ENOSPC) and
// query_only for a read-only one (SQLITE_READONLY).

import { expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { harness, type Harness } from "../testing/app-harness";
import { inTempDir } from "../testing/temp-dir";

const TEXT = { "Content-Type": "text/plain" };

async function ready(h: Harness): Promise<{ status: number; body: { status: string; reason?: string }; retryAfter: string | null }> {
  const res = await h.request("GET", "/__ursula/ready");
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string }, retryAfter: res.headers.get("Retry-After") };
}

const metricReady = async (h: Harness) => /^ursa_ready (\d)$/m.exec(await (await h.request("GET", "/__ursula/metrics")).text())![1];

/** Appends 8 KiB writes until one is refused; returns its status. */
async function fill(h: Harness): Promise<number> {
  for (let i = 0; i < 100; i++) {
    const res = await h.request("POST", "/ready-b/s", { headers: TEXT, body: "x".repeat(8192) });
    if (res.status !== 204) return res.status;
  }
  throw new Error("never full");
}

test("a store that finds its disk full is unready until its probe finds room; writes wait for the probe", async () => {
  await inTempDir(async (dir) => {
    const h = harness({ path: join(dir, "ursa.sqlite") });
    try {
      const db = (h.store as unknown as { db: Database }).db;
      expect(await ready(h)).toEqual({ status: 200, body: { status: "ready" }, retryAfter: null });
      expect((await h.request("PUT", "/ready-b/s", { headers: TEXT })).status).toBe(201);
      const pages = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;

      db.exec(`PRAGMA max_page_count = ${pages + 4}`);
      expect(await fill(h)).toBe(507);
      const full = await ready(h);
      expect(full.status).toBe(503);
      expect(full.body.status).toBe("unready");
      expect(full.body.reason).toMatch(/^storage full/);
      expect(full.retryAfter).toBe("1");
      expect(await metricReady(h)).toBe("0");
      // The probe needs room too: asked again after its interval, still unready.
      await new Promise((r) => setTimeout(r, 1100));
      expect((await ready(h)).status).toBe(503);

      // Room again: writes that add data stay refused, untried, until the probe (run by /ready, or
      // by the store itself every second) has found it; then ready, and they land.
      db.exec(`PRAGMA max_page_count = ${pages + 1000}`);
      expect((await h.request("POST", "/ready-b/s", { headers: TEXT, body: "too soon" })).status).toBe(507);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await ready(h)).status).toBe(200);
      expect(await metricReady(h)).toBe("1");
      expect((await h.request("POST", "/ready-b/s", { headers: TEXT, body: "room" })).status).toBe(204);

      // Full again; room again, and nobody writes: the probe finds out within its interval.
      const now = db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
      db.exec(`PRAGMA max_page_count = ${now + 4}`);
      expect(await fill(h)).toBe(507);
      expect((await ready(h)).status).toBe(503);
      db.exec(`PRAGMA max_page_count = ${now + 1000}`);
      let status = 503;
      for (let i = 0; i < 30 && status !== 200; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = (await ready(h)).status;
      }
      expect(status).toBe(200);
      // The probe left nothing behind.
      expect(db.query("SELECT 1 FROM meta WHERE key = 'ready_probe'").get()).toBeNull();
    } finally {
      await h.close();
    }
  });
});

test("a read-only store is unready, and its writes get 503 STORAGE_UNAVAILABLE with nothing written", async () => {
  const h = harness();
  try {
    const db = (h.store as unknown as { db: Database }).db;
    expect((await h.request("PUT", "/ready-b/s", { headers: TEXT, body: "kept" })).status).toBe(201);
    db.exec("PRAGMA query_only = 1");
    const before = await h.fingerprint("ready-b/s");
    const refused = await h.request("POST", "/ready-b/s", { headers: TEXT, body: "lost" });
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("STORAGE_UNAVAILABLE");
    expect(await h.fingerprint("ready-b/s")).toBe(before);
    const r = await ready(h);
    expect([r.status, r.body.reason]).toEqual([503, "storage is read-only: writes fail"]);
    db.exec("PRAGMA query_only = 0");
    await new Promise((r) => setTimeout(r, 1100));
    expect((await ready(h)).status).toBe(200);
  } finally {
    await h.close();
  }
});

test("a closing store is unready", async () => {
  const h = harness();
  await h.close();
  const r = await ready(h);
  expect([r.status, r.body.reason]).toEqual([503, "shutting down"]);
});
