// Snapshots, attributes and the retained floor are state of the stream like its bytes (spec §1.9):
// acknowledged, they survive a clean restart and a kill -9 alike. A snapshot upload cut off by a
// kill leaves a staging file behind, which the next start removes.
import { execFileSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { restartPair } from "./restart-pair.ts";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const J = { "Content-Type": "application/json" };
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
const MiB = 1024 * 1024;

/** The snapshot's bytes: 3 MiB, so they span several chunk rows. */
function snapshotBytes(): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(3 * MiB + 17);
  for (let i = 0; i < out.length; i++) out[i] = (i * 31 + (i >> 9)) & 0xff;
  return out;
}

/** Runs a query on a stopped server's database with the sqlite3 command-line shell. */
function sql(u: UrsaProcess, query: string): string {
  return execFileSync("sqlite3", [join(u.dataDir, "ursa.sqlite"), query], { encoding: "utf8" }).trim();
}

describe.each([{ signal: "SIGTERM" as const }, { signal: "SIGKILL" as const }])("snapshots, attributes and the floor after $signal", ({ signal }) => {
  const pair = restartPair();
  const path = `/e2e-res/restart-${signal.toLowerCase()}`;
  const before = { digest: "", incarnation: "" };

  test("the first process acknowledges them", { timeout: 20_000 }, async () => {
    const first = (pair.first = await startUrsa());
    const url = `${first.url}${path}`;
    expect((await fetch(url, { method: "PUT", headers: { ...J, "Stream-Attrs": '{"title":"restart"}' }, body: '[{"n":1},{"n":2},{"n":3}]' })).status).toBe(201);
    const snap = await fetch(`${url}/snapshot/${at(16)}`, { method: "PUT", headers: { "Content-Type": "application/octet-stream" }, body: snapshotBytes() });
    expect(snap.status).toBe(204);
    before.digest = snap.headers.get("Stream-Snapshot-Digest")!;
    expect((await fetch(`${url}/retention/${at(8)}`, { method: "PUT" })).status).toBe(204);
    expect((await fetch(`${url}/attrs`, { method: "PUT", headers: J, body: '{"title":"renamed","metadata":{"k":1}}' })).status).toBe(204);
    before.incarnation = (await fetch(url, { method: "HEAD" })).headers.get("Stream-Incarnation")!;
    if (signal === "SIGKILL") await first.kill();
    else expect(await first.stop()).toBe(0);
  });

  test("the second process has every one of them", { timeout: 20_000 }, async () => {
    const second = (pair.second = await startUrsa({ dataDir: pair.first!.dataDir }));
    const url = `${second.url}${path}`;
    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("Stream-Incarnation")).toBe(before.incarnation);
    expect(head.headers.get("Stream-Retained-Offset")).toBe(at(8));
    expect(head.headers.get("Stream-Snapshot-Offset")).toBe(at(16));
    expect(head.headers.get("Stream-Snapshot-Digest")).toBe(before.digest);
    expect(await (await fetch(`${url}/attrs`)).json()).toEqual({ title: "renamed", metadata: { k: 1 } });
    const read = await fetch(`${url}/snapshot/${at(16)}`);
    expect(read.headers.get("Content-Type")).toBe("application/octet-stream");
    // Buffer.equals: a deep toEqual of 3 MiB element by element takes longer than the test may.
    expect(Buffer.from(await read.arrayBuffer()).equals(snapshotBytes())).toBe(true);
    const gone = await fetch(`${url}?offset=-1`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get("Stream-Earliest-Offset")).toBe(at(8));
    expect(await (await fetch(`${url}?offset=${at(8)}`)).json()).toEqual([{ n: 2 }, { n: 3 }]);
    const boot = await fetch(`${url}/bootstrap`);
    expect(boot.headers.get("Stream-Snapshot-Offset")).toBe(at(16));
    expect(boot.headers.get("Stream-Next-Offset")).toBe(at(24));
    await boot.arrayBuffer();
    // The floor keeps moving from where it was.
    expect((await fetch(`${url}/retention/${at(16)}`, { method: "PUT" })).status).toBe(204);
    expect((await fetch(`${url}/retention/${at(8)}`, { method: "PUT" })).status).toBe(409);
  });
});

describe("a snapshot upload cut off by kill -9", () => {
  const pair = restartPair();

  test("leaves a staging file that the next start removes", { timeout: 30_000 }, async () => {
    const first = (pair.first = await startUrsa());
    const url = `${first.url}/e2e-res/cut`;
    expect((await fetch(url, { method: "PUT", headers: J, body: "[1]" })).status).toBe(201);
    // 6 MiB sent of a body that never ends: six chunks are written to its file, and nothing refers to it.
    let sent = 0;
    let sentAll!: () => void;
    const sentEnough = new Promise<void>((r) => (sentAll = r));
    const upload = fetch(`${url}/snapshot/${at(2)}`, {
      method: "PUT",
      headers: { "Content-Type": "application/octet-stream" },
      body: new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 6 * MiB) return sentAll();
          sent += 256 * 1024;
          controller.enqueue(new Uint8Array(256 * 1024).fill(5));
        },
      }),
      duplex: "half",
    } as RequestInit).catch(() => "cut off");
    await sentEnough;
    await new Promise((r) => setTimeout(r, 500));
    await first.kill();
    expect(await upload).toBe("cut off");
    const staged = join(first.dataDir, "ursa.sqlite-snapshots", sql(first, "SELECT id FROM snapshot_blobs WHERE staging = 1"));
    expect(statSync(staged).size).toBeGreaterThanOrEqual(4 * MiB);

    const second = (pair.second = await startUrsa({ dataDir: first.dataDir }));
    expect((await fetch(`${second.url}/e2e-res/cut/snapshot`)).status).toBe(404);
    // Collection runs in the background, a bounded step at a time, right after start-up.
    for (let i = 0; i < 100 && existsSync(staged); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await second.stop()).toBe(0);
    expect(existsSync(staged)).toBe(false);
    expect(sql(second, "SELECT count(*) FROM snapshot_blobs")).toBe("0");
  });
});
