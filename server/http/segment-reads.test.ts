// Segment files (storage/sqlite/segment-files.ts): sealed runs of a byte stream's messages move out of
// their rows into files, and every read, fork, retention and delete keeps the stream's bytes
// exact across rows and files. Runs are 64 KiB here, so a few hundred KiB make several files.

import { Database } from "bun:sqlite";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness, type Harness } from "../testing/app-harness";

const B = { "Content-Type": "application/octet-stream" };
const SEGMENT = 64 * 1024;
const at = (n: number) => `0000000000000000_${String(n).padStart(16, "0")}`;
let h: Harness;
let dir: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ursa-segments-"));
  path = join(dir, "ursa.sqlite");
  h = harness({ path, materializeEveryMs: 0, segmentBytes: SEGMENT });
});
afterEach(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Messages of 3-9 KiB, each byte a function of its offset, so a misplaced byte shows. */
function messages(count: number, from = 0): Uint8Array<ArrayBuffer>[] {
  const out: Uint8Array<ArrayBuffer>[] = [];
  let offset = from;
  for (let i = 0; i < count; i++) {
    const m = new Uint8Array(3 * 1024 + ((i * 2654435761) % (6 * 1024)));
    for (let k = 0; k < m.length; k++) m[k] = (offset + k) * 31 % 251;
    offset += m.length;
    out.push(m);
  }
  return out;
}

function joined(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) out.set(p, (at += p.length) - p.length);
  return out;
}

async function fill(p: string, count: number, from = 0): Promise<Uint8Array<ArrayBuffer>> {
  if (from === 0) expect((await h.request("PUT", p, { headers: B })).status).toBe(201);
  const parts = messages(count, from);
  for (const m of parts) expect((await h.request("POST", p, { headers: B, body: m })).status).toBe(204);
  return joined(parts);
}

/** Every byte from `offset` on, following Stream-Next-Offset, `maxBytes` a response. */
async function readAll(p: string, offset: number, maxBytes?: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let next = offset === 0 ? "-1" : at(offset);
  for (;;) {
    const res = await h.request("GET", `${p}?offset=${next}${maxBytes ? `&max_bytes=${maxBytes}` : ""}`);
    expect(res.status).toBe(200);
    parts.push(new Uint8Array(await res.arrayBuffer()));
    if (res.headers.get("stream-up-to-date") === "true") return joined(parts);
    next = res.headers.get("stream-next-offset")!;
  }
}

function files(): { stream_id: number; lo: number; hi: number }[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ stream_id: number; lo: number; hi: number }, []>("SELECT stream_id, lo, hi FROM msg_files ORDER BY stream_id, lo").all();
  } finally {
    db.close();
  }
}

const idOf = async (key: string) => (await h.store.get(key))!.id;

describe("moving sealed runs to files", () => {
  test("empties the rows of each full run into its file, and reads every offset exactly across rows and files", async () => {
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const id = await idOf("test-b/s");
    const moved = files();
    // Whole runs only, contiguous from the start; the rest stays in rows.
    expect(moved.length).toBeGreaterThanOrEqual(3);
    expect(moved[0]!.lo).toBe(0);
    for (let i = 1; i < moved.length; i++) expect(moved[i]!.lo).toBe(moved[i - 1]!.hi);
    for (const f of moved) {
      expect(f.stream_id).toBe(id);
      expect(f.hi - f.lo).toBeGreaterThanOrEqual(SEGMENT);
      expect(existsSync(join(`${path}-segments`, `${id}-${f.lo}`))).toBe(true);
    }
    expect(moved[moved.length - 1]!.hi).toBeLessThan(bytes.length);
    expect(h.store.stats().segmentFileBytes).toBe(moved[moved.length - 1]!.hi);
    const db = new Database(path, { readonly: true });
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM msgs WHERE flen IS NOT NULL AND length(data) > 0").get()!.n).toBe(0);
    expect(db.query<{ n: number }, []>("SELECT coalesce(sum(flen), 0) AS n FROM msgs").get()!.n).toBe(moved[moved.length - 1]!.hi);
    db.close();

    expect(await readAll("/test-b/s", 0)).toEqual(bytes);
    // Small responses from every kind of place: inside a file, across a file's end, inside rows.
    for (let offset = 0; offset < bytes.length; offset += 7919) expect(await readAll("/test-b/s", offset, 10_000)).toEqual(bytes.subarray(offset));
  });

  test("answers a catch-up inside a file from the file itself, ending where the file does", async () => {
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const first = files()[0]!;
    const state = (await h.store.get("test-b/s"))!;
    const span = h.store.fileSpan(state, 100, 8 * 1024 * 1024)!;
    expect(span.end).toBe(first.hi);
    expect(new Uint8Array(await span.body.arrayBuffer())).toEqual(bytes.subarray(100, first.hi));
    const res = await h.request("GET", `/test-b/s?offset=${at(100)}`);
    expect(res.headers.get("stream-next-offset")).toBe(at(first.hi));
    expect(res.headers.get("content-type")).toBe("application/octet-stream");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.subarray(100, first.hi));
    // Past the last file, the rows answer.
    expect(h.store.fileSpan(state, files().at(-1)!.hi, 8 * 1024 * 1024)).toBeNull();
  });

  test("while other requests are in progress, a response from a file carries at most 2 MiB", async () => {
    await h.close();
    let busy = false;
    h = harness({ path, materializeEveryMs: 0, segmentBytes: 4 * 1024 * 1024, busy: () => busy });
    expect((await h.request("PUT", "/test-b/big", { headers: B })).status).toBe(201);
    const sent = Array.from({ length: 80 }, (_, i) => new Uint8Array(64 * 1024).fill(i));
    for (const m of sent) expect((await h.request("POST", "/test-b/big", { headers: B, body: m })).status).toBe(204);
    await h.store.reclaimed();
    const state = (await h.store.get("test-b/big"))!;
    expect(h.store.fileSpan(state, 0, 8 * 1024 * 1024)!.end).toBe(4 * 1024 * 1024);
    busy = true;
    expect(h.store.fileSpan(state, 0, 8 * 1024 * 1024)!.end).toBe(2 * 1024 * 1024);
    const res = await h.request("GET", "/test-b/big?offset=-1");
    expect(res.headers.get("stream-next-offset")).toBe(at(2 * 1024 * 1024));
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(joined(sent).subarray(0, 2 * 1024 * 1024));
  });

  test("a file's last bytes before more of the stream are answered from rows, with what follows, in one response", async () => {
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const first = files()[0]!;
    const state = (await h.store.get("test-b/s"))!;
    expect(h.store.fileSpan(state, first.hi - 100, 8 * 1024 * 1024)).toBeNull();
    const res = await h.request("GET", `/test-b/s?offset=${at(first.hi - 100)}&max_bytes=5000`);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.subarray(first.hi - 100, first.hi + 4900));
    // A span that is all the read asks for is sent from the file, however short.
    expect(h.store.fileSpan(state, first.hi - 100, 100)!.end).toBe(first.hi);
  });

  test("a long-poll, which reads rows and files rather than sending a file, returns moved bytes exactly", async () => {
    const bytes = await fill("/test-b/s", 40);
    await h.store.reclaimed();
    expect(files().length).toBeGreaterThan(0);
    const poll = await h.request("GET", `/test-b/s?offset=${at(5)}&live=long-poll`);
    expect(poll.status).toBe(200);
    const polled = new Uint8Array(await poll.arrayBuffer());
    expect(polled).toEqual(bytes.subarray(5, 5 + polled.length));
    expect(polled.length).toBeGreaterThan(SEGMENT);
  });

  test("streams of small messages stay in their rows", async () => {
    expect((await h.request("PUT", "/test-b/small", { headers: B })).status).toBe(201);
    // More than a run's bytes in all, but fewer in a move's most rows (8,192): 1 KiB a message
    // on average at the default 8 MiB, 8 bytes at this test's 64 KiB.
    const body = new Uint8Array(7).fill(7);
    for (let i = 0; i < 10_000; i++) expect((await h.request("POST", "/test-b/small", { headers: B, body })).status).toBe(204);
    expect((await h.store.get("test-b/small"))!.tail).toBeGreaterThan(SEGMENT);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
    // 10,000 appends take 4-5 s on this machine: more than bun's default 5 s with other files running.
  }, 30_000);

  test("a database without incremental vacuum keeps its messages in rows", async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), "ursa-segments-"));
    path = join(dir, "ursa.sqlite");
    // What an ursa before schema version 4 made: its file cannot give freed pages back.
    const legacy = new Database(path);
    legacy.exec("PRAGMA auto_vacuum = NONE; CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;");
    legacy.close();
    h = harness({ path, materializeEveryMs: 0, segmentBytes: SEGMENT });
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
    expect(await readAll("/test-b/s", 0)).toEqual(bytes);
  });

  test("JSON streams stay in their rows", async () => {
    const J = { "Content-Type": "application/json" };
    expect((await h.request("PUT", "/test-b/j", { headers: J })).status).toBe(201);
    const batch = `[${Array.from({ length: 500 }, (_, i) => JSON.stringify({ i, pad: "x".repeat(200) })).join(",")}]`;
    for (let i = 0; i < 3; i++) expect((await h.request("POST", "/test-b/j", { headers: J, body: batch })).status).toBe(204);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
  });
});

describe("forks, retention and deletes", () => {
  test("a fork inside a moved run reads through it, and its sub-offset's prefix is copied from the file", async () => {
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const first = files()[0]!;
    // A message boundary inside the first file, and 1,000 bytes into the message after it.
    const parts = messages(60);
    let offset = 0;
    for (let i = 0; offset + parts[i]!.length < first.hi - 10_000; i++) offset += parts[i]!.length;
    const fork = await h.request("PUT", "/test-b/f", { headers: { "Stream-Forked-From": "/test-b/s", "Stream-Fork-Offset": at(offset), "Stream-Fork-Sub-Offset": "1000" } });
    expect(fork.status).toBe(201);
    const own = new Uint8Array(5000).fill(9);
    expect((await h.request("POST", "/test-b/f", { headers: B, body: own })).status).toBe(204);
    expect(await readAll("/test-b/f", 0, 20_000)).toEqual(joined([bytes.subarray(0, offset + 1000), own]));
  });

  test("retention lets go of a file once none of its rows is left; a file a response was handed stays until the grace is over", async () => {
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const [first, second] = files();
    const id = await idOf("test-b/s");
    // A catch-up from the start is handed the first file.
    expect((await h.request("GET", "/test-b/s?offset=-1")).status).toBe(200);
    // A floor at a message inside the second file: the first goes, the second stays.
    let floor = 0;
    for (const m of messages(60)) if ((floor += m.length) > second!.lo) break;
    expect((await h.request("PUT", `/test-b/s/snapshot/${at(floor)}`, { headers: B, body: "state" })).status).toBe(204);
    expect((await h.request("PUT", `/test-b/s/retention/${at(floor)}`)).status).toBe(204);
    await h.store.reclaimed();
    expect(files().map((f) => f.lo)).not.toContain(first!.lo);
    expect(files().map((f) => f.lo)).toContain(second!.lo);
    expect((await h.store.get("test-b/s"))!.retained).toBe(floor);
    expect(await readAll("/test-b/s", floor)).toEqual(bytes.subarray(floor));
    // The first file outlives its last row by a grace period (a response was just handed it, and
    // may not have opened it yet); a stop deletes it at once.
    expect(readdirSync(`${path}-segments`)).toContain(`${id}-${first!.lo}`);
    await h.close();
    expect(readdirSync(`${path}-segments`)).not.toContain(`${id}-${first!.lo}`);
    expect(readdirSync(`${path}-segments`)).toContain(`${id}-${second!.lo}`);
    h = harness({ path, materializeEveryMs: 0, segmentBytes: SEGMENT });
  });

  test("a file no response was handed is deleted as soon as the deletion of its last row is durable", async () => {
    await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const id = await idOf("test-b/s");
    expect(readdirSync(`${path}-segments`).length).toBe(files().length);
    expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
    expect(readdirSync(`${path}-segments`).filter((name) => name.startsWith(`${id}-`))).toEqual([]);
  });

  for (const order of ["source first", "fork first"] as const) {
    test(`deleting a source and its fork (${order}) keeps the fork's bytes exact, then frees every file`, async () => {
      const bytes = await fill("/test-b/s", 60);
      await h.store.reclaimed();
      const moved = files();
      const forkAt = moved[1]!.lo;
      expect((await h.request("PUT", "/test-b/f", { headers: { "Stream-Forked-From": "/test-b/s", "Stream-Fork-Offset": at(forkAt) } })).status).toBe(201);
      const first = order === "source first" ? "/test-b/s" : "/test-b/f";
      expect((await h.request("DELETE", first)).status).toBe(204);
      await h.store.reclaimed();
      if (order === "source first") {
        // The fork reads below its offset: the first file stays, the later ones go.
        expect(files().map((f) => f.lo)).toEqual([moved[0]!.lo]);
        expect(await readAll("/test-b/f", 0)).toEqual(bytes.subarray(0, forkAt));
      } else {
        expect(files()).toEqual(moved);
        expect(await readAll("/test-b/s", 0)).toEqual(bytes);
      }
      expect((await h.request("DELETE", order === "source first" ? "/test-b/f" : "/test-b/s")).status).toBe(204);
      await h.store.reclaimed();
      expect(files()).toEqual([]);
      expect(h.store.stats().segmentFileBytes).toBe(0);
    });
  }
});

test("ursa_background_tasks counts the runs waiting to move and a delete's reclaim, and reads 0 once both are done", async () => {
  const tasks = async () => Number(/^ursa_background_tasks (\d+)$/m.exec(await (await h.request("GET", "/__ursula/metrics")).text())![1]);
  await fill("/test-b/s", 60);
  // The runs wait for the mover's next look (a quarter of a second after the appends).
  expect(await tasks()).toBeGreaterThan(0);
  await h.store.reclaimed();
  expect(files().length).toBeGreaterThan(1);
  expect(await tasks()).toBe(0);
  expect((await h.request("DELETE", "/test-b/s")).status).toBe(204);
  // Queued once the delete is durable, before it was answered.
  expect(await tasks()).toBeGreaterThan(0);
  await h.store.reclaimed();
  expect(files()).toEqual([]);
  expect(await tasks()).toBe(0);
});

describe("after a crash or a restart", () => {
  test("a file no row refers to is deleted at start-up, and the files are read again", async () => {
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    const id = await idOf("test-b/s");
    await h.close();
    const orphan = join(`${path}-segments`, `${id}-${bytes.length}`);
    writeFileSync(orphan, "left by a crash between its sync and its commit");
    h = harness({ path, materializeEveryMs: 0, segmentBytes: SEGMENT });
    await h.store.reclaimed();
    expect(existsSync(orphan)).toBe(false);
    expect(await readAll("/test-b/s", 0)).toEqual(bytes);
    const state = (await h.store.get("test-b/s"))!;
    expect(h.store.fileSpan(state, 0, 1024)).not.toBeNull();
  });

  test("a stream written before a restart is moved after it", async () => {
    await h.close();
    h = harness({ path, materializeEveryMs: 0 });
    const bytes = await fill("/test-b/s", 60);
    await h.store.reclaimed();
    expect(files()).toEqual([]);
    await h.close();
    h = harness({ path, materializeEveryMs: 0, segmentBytes: SEGMENT });
    await h.store.reclaimed();
    expect(files().length).toBeGreaterThanOrEqual(3);
    expect(await readAll("/test-b/s", 0)).toEqual(bytes);
  });

  test("a missing file fails that stream's reads of it with 500 STORAGE_CORRUPT, and no other stream's", async () => {
    const bytes = await fill("/test-b/s", 60);
    const other = await fill("/test-b/o", 60);
    await h.store.reclaimed();
    const id = await idOf("test-b/s");
    await h.close();
    unlinkSync(join(`${path}-segments`, `${id}-0`));
    h = harness({ path, materializeEveryMs: 0, segmentBytes: SEGMENT });
    await h.store.reclaimed();
    const res = await h.request("GET", "/test-b/s?offset=-1");
    expect(res.status).toBe(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("STORAGE_CORRUPT");
    expect(h.store.stats().damagedStreams).toBe(1);
    // Bytes past the missing file, and the other stream, read as ever.
    const later = files().find((f) => f.stream_id === id && f.lo > 0)!;
    expect(await readAll("/test-b/s", later.lo)).toEqual(bytes.subarray(later.lo));
    expect(await readAll("/test-b/o", 0)).toEqual(other);
  });
});
