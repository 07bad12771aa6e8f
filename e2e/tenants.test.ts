// Tenants stay apart, against the binary with a token file (docs/security.md, "Tenants"): a token
// limited to one bucket learns nothing of another through forks, stream details or the server's
// figures; and the HTTP edge cases of the same red-team report (several Host headers, malformed
// bucket IDs on every method).
import net from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const ADMIN = "admin-token-0123456789abcdef";
const READER = "reader-token-0123456789abcdef";

let ursa: UrsaProcess;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "ursa-tenants-"));
  writeFileSync(join(dir, "tokens"), `${ADMIN} read,write,admin\n${READER} read tenant-a\n`);
  ursa = await startUrsa({ args: ["--token-file", join(dir, "tokens")] });
  const as = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    fetch(ursa.url + path, { method, headers: { authorization: `Bearer ${ADMIN}`, ...headers }, body });
  const text = { "content-type": "text/plain" };
  expect((await as("PUT", "/tenant-a/feed", text, "hello")).status).toBe(201);
  expect((await as("PUT", "/tenant-b/secret-plan", { ...text, "stream-forked-from": "/tenant-a/feed" })).status).toBe(201);
  expect((await as("PUT", "/private/p1", text, "hidden")).status).toBe(201);
  expect((await as("PUT", "/tenant-a/from-p", { ...text, "stream-forked-from": "/private/p1" })).status).toBe(201);
});

afterAll(async () => {
  await ursa.stop();
  ursa.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const read = async (path: string, token = READER) => {
  const r = await fetch(ursa.url + path, { headers: { authorization: `Bearer ${token}` } });
  return { status: r.status, text: await r.text() };
};

describe("a token limited to tenant-a", () => {
  test("cannot read tenant-b's stream, and its fork family does not name it (row 1)", async () => {
    expect((await read("/tenant-b/secret-plan?offset=-1")).status).toBe(404);
    const forks = await read("/__ursula/api/streams/tenant-a/feed/forks");
    expect(forks.status).toBe(200);
    expect(forks.text).not.toContain("tenant-b");
    expect(forks.text).not.toContain("secret-plan");
    // The admin sees the fork, so the reader's tree lacks it because it is hidden, not because it is missing.
    expect((await read("/__ursula/api/streams/tenant-a/feed/forks", ADMIN)).text).toContain("/tenant-b/secret-plan");
  });

  test("sees a fork's source in a hidden bucket only as a stream it cannot see (row 2)", async () => {
    const detail = JSON.parse((await read("/__ursula/api/streams/tenant-a/from-p")).text);
    expect(detail.fork).toEqual({ source: null, offset: "0000000000000000_0000000000000006", sub_offset: 0 });
    const forks = await read("/__ursula/api/streams/tenant-a/from-p/forks");
    expect(forks.text).not.toContain("private");
    const tree = JSON.parse(forks.text);
    expect(tree.lineage).toEqual([null, "/tenant-a/from-p"]);
    expect(tree.root).toEqual({ hidden: true, children: [expect.objectContaining({ path: "/tenant-a/from-p", hidden: false })] });
    const list = JSON.parse((await read("/__ursula/api/buckets/tenant-a/streams")).text);
    expect(list.streams.find((s: { stream_id: string }) => s.stream_id === "from-p")).toMatchObject({ forked: true, fork_source: null });
  });

  test("is told the size of its own bucket only, live readers included (row 3)", async () => {
    const controller = new AbortController();
    const sse = await fetch(`${ursa.url}/private/p1?offset=-1&live=sse`, { headers: { authorization: `Bearer ${ADMIN}` }, signal: controller.signal });
    expect(sse.status).toBe(200);
    try {
      const mine = JSON.parse((await read("/__ursula/api/info")).text);
      expect([mine.buckets, mine.streams, mine.live_readers]).toEqual([1, 2, 0]);
      const all = JSON.parse((await read("/__ursula/api/info", ADMIN)).text);
      expect([all.buckets, all.streams, all.live_readers]).toEqual([3, 4, 1]);
    } finally {
      controller.abort();
    }
  });
});

/** One request written as raw bytes; what came back before the server closed or went quiet. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve) => {
    let got = "";
    const socket = net.connect(Number(new URL(ursa.url).port), "127.0.0.1", () => socket.write(raw));
    const done = () => (socket.destroy(), resolve(got));
    const timer = setTimeout(done, 2000);
    socket.on("data", (d) => {
      got += d.toString("latin1");
      if (got.includes("\r\n\r\n")) (clearTimeout(timer), setTimeout(done, 50));
    });
    socket.on("close", () => (clearTimeout(timer), resolve(got)));
    socket.on("error", () => undefined);
  });
}

describe("HTTP by the book", () => {
  test("two Host headers, or one with a comma, get 400 (RFC 9112 §3.2; row 4)", async () => {
    const host = new URL(ursa.url).host;
    for (const hosts of [`Host: ${host}\r\nHost: evil.example`, `Host: ${host}, evil.example`]) {
      const answer = await exchange(`GET /__ursula/health HTTP/1.1\r\n${hosts}\r\nConnection: close\r\n\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toContain('"code":"BAD_REQUEST"');
    }
    expect(await exchange(`GET /__ursula/health HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);
  });

  test("a malformed bucket ID gets 400 INVALID_BUCKET_ID on every method (row 10)", async () => {
    for (const method of ["GET", "HEAD", "PUT", "DELETE", "POST"]) {
      const r = await fetch(`${ursa.url}/Rp-abcd`, { method, headers: { authorization: `Bearer ${ADMIN}` } });
      expect([method, r.status]).toEqual([method, 400]);
      if (method !== "HEAD") expect((await r.json()).error.code).toBe("INVALID_BUCKET_ID");
    }
  });
});
