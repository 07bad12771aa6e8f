// Segment files against the compiled binary (server/storage/sqlite/segment-files.ts): with 1 MiB files, a
// byte stream's messages move out of the database as they are written; catch-ups inside a file
// are sent from it, with the stream's own headers, and kill -9 at any point of a move loses no
// acknowledged byte and leaves no file behind that no message refers to.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "vitest";
import { metric, startUrsa, until } from "./server-process.ts";

const SEGMENT = ["--segment-mb", "1"];
const TYPE = "application/x-ursa-test";
const MESSAGE = 64 * 1024;

/** Every byte of the stream, following Stream-Next-Offset; the responses' ends too. */
async function readAll(url: string): Promise<{ bytes: Buffer; responses: Response[] }> {
  const parts: Buffer[] = [];
  const responses: Response[] = [];
  let offset = "-1";
  for (let page = 0; page < 10_000; page++) {
    const res = await fetch(`${url}?offset=${offset}`);
    if (res.status !== 200) throw new Error(`GET ${url}?offset=${offset}: ${res.status} ${await res.text()}`);
    parts.push(Buffer.from(await res.arrayBuffer()));
    responses.push(res);
    if (res.headers.get("Stream-Up-To-Date") === "true") return { bytes: Buffer.concat(parts), responses };
    offset = res.headers.get("Stream-Next-Offset")!;
  }
  throw new Error(`${url}: not up to date after 10,000 responses`);
}

function segmentFiles(dataDir: string): { names: string[]; bytes: number } {
  const dir = join(dataDir, "ursa.sqlite-segments");
  const names = existsSync(dir) ? readdirSync(dir) : [];
  return { names, bytes: names.reduce((n, name) => n + statSync(join(dir, name)).size, 0) };
}

test("a catch-up of moved messages is sent from the files, byte for byte, with the stream's own headers", async () => {
  const u = await startUrsa({ args: SEGMENT });
  try {
    const url = `${u.url}/e2e-test/moved`;
    expect((await fetch(url, { method: "PUT", headers: { "Content-Type": TYPE } })).status).toBe(201);
    const sent: Buffer[] = [];
    for (let i = 0; i < 48; i++) {
      const m = randomBytes(MESSAGE);
      sent.push(m);
      expect((await fetch(url, { method: "POST", headers: { "Content-Type": TYPE }, body: m })).status).toBe(204);
    }
    // 48 messages of 64 KiB are three whole runs of 1 MiB: wait until all three are moved (the
    // files on disk and the gauge differ while a move is under way).
    await until("three files", async () => (await metric(u, "ursa_segment_file_bytes")) === 3 * 1024 * 1024);
    const files = segmentFiles(u.dataDir);
    expect(files.bytes).toBe(3 * 1024 * 1024);
    expect(files.names.length).toBe(3);

    const { bytes, responses } = await readAll(url);
    expect(bytes.equals(Buffer.concat(sent))).toBe(true);
    // The first response is the first file, whole: it ends where the file does.
    expect(Number(responses[0]!.headers.get("Stream-Next-Offset")!.split("_")[1])).toBe(1024 * 1024);
    for (const res of responses) {
      expect(res.headers.get("Content-Type")).toBe(TYPE);
      expect(res.headers.get("Cache-Control")).not.toBeNull();
    }
    // A conditional read of a range sent from a file is a 304 like any other.
    const etag = responses[0]!.headers.get("ETag")!;
    expect((await fetch(`${url}?offset=-1`, { headers: { "If-None-Match": etag } })).status).toBe(304);
    // A read from inside a file starts exactly there.
    const inside = await fetch(`${url}?offset=0000000000000000_${String(100_000).padStart(16, "0")}`);
    expect(Buffer.from(await inside.arrayBuffer()).equals(Buffer.concat(sent).subarray(100_000, 1024 * 1024))).toBe(true);

    // A file removed behind ursa's back is damage, answered as such (not Bun's error page), and
    // logged; the server goes on.
    const dir = join(u.dataDir, "ursa.sqlite-segments");
    rmSync(join(dir, files.names.sort()[0]!));
    const broken = await fetch(`${url}?offset=-1`);
    expect(broken.status).toBe(500);
    expect(((await broken.json()) as { error: { code: string } }).error.code).toBe("STORAGE_CORRUPT");
    expect(await u.logged("a segment file could not be opened for a response")).toContain("a segment file could not be opened for a response");
    expect((await fetch(`${u.url}/__ursula/health`)).status).toBe(200);
  } finally {
    await u.stop();
    u.cleanup();
  }
}, 30_000);

test("kill -9 while messages move: every acknowledged byte reads back exactly, and no file is left that no message refers to", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ursa-segments-kill-"));
  const acked: Buffer[] = [];
  let inFlight: Buffer | null = null;
  let moved = 0;
  try {
    for (let cycle = 0; cycle < 8; cycle++) {
      const u = await startUrsa({ dataDir, args: SEGMENT });
      const url = `${u.url}/e2e-test/killed`;
      if (cycle === 0) expect((await fetch(url, { method: "PUT", headers: { "Content-Type": TYPE } })).status).toBe(201);
      // What the last process acknowledged, and at most the one append it was killed in.
      const { bytes } = await readAll(url);
      const sure = Buffer.concat(acked);
      if (inFlight && bytes.length === sure.length + inFlight.length) acked.push(inFlight);
      else expect(bytes.length).toBe(sure.length);
      expect(bytes.equals(Buffer.concat(acked))).toBe(true);
      inFlight = null;
      // Files a kill left between a file's sync and its commit are swept: the files on disk are
      // exactly the bytes the database says were moved.
      await until("the sweep", async () => segmentFiles(dataDir).bytes === (await metric(u, "ursa_segment_file_bytes")));
      moved = Math.max(moved, await metric(u, "ursa_segment_file_bytes"));

      const stopAt = Date.now() + 400 + ((cycle * 137) % 500);
      while (Date.now() < stopAt) {
        const m = randomBytes(MESSAGE);
        inFlight = m;
        const res = await fetch(url, { method: "POST", headers: { "Content-Type": TYPE }, body: m });
        expect(res.status).toBe(204);
        acked.push(m);
        inFlight = null;
      }
      // The kill lands while the next append is in flight, and as often as not during a move.
      const last = randomBytes(MESSAGE);
      inFlight = last;
      void fetch(url, { method: "POST", headers: { "Content-Type": TYPE }, body: last }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, cycle % 3));
      await u.kill();
    }
    // Moves went on in the cycles, and after the last kill they resume and catch up: every whole
    // run of 1 MiB is in a file, the files are exactly what the database says, and every byte reads.
    expect(moved).toBeGreaterThan(0);
    const u = await startUrsa({ dataDir, args: SEGMENT });
    try {
      const { bytes } = await readAll(`${u.url}/e2e-test/killed`);
      if (inFlight && bytes.length === Buffer.concat(acked).length + inFlight.length) acked.push(inFlight);
      const total = Buffer.concat(acked);
      expect(bytes.equals(total)).toBe(true);
      await until("the moves to catch up", async () => (await metric(u, "ursa_segment_file_bytes")) > total.length - 1024 * 1024);
      expect(segmentFiles(dataDir).bytes).toBe(await metric(u, "ursa_segment_file_bytes"));
      expect((await readAll(`${u.url}/e2e-test/killed`)).bytes.equals(total)).toBe(true);
    } finally {
      await u.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 120_000);
