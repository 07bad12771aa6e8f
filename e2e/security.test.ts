// The compiled binary's security options as a user meets them: DNS rebinding refused on every
// route family, the console's headers and compression, JWTs verified against a JWKS served from
// loopback, start-up checks, quotas, and no token value in the server's output.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { BINARY, startUrsa, type UrsaProcess } from "./server-process.ts";

const started: UrsaProcess[] = [];
const dirs: string[] = [];
async function ursa(args: string[] = []): Promise<UrsaProcess> {
  const u = await startUrsa({ args });
  started.push(u);
  return u;
}
afterAll(async () => {
  for (const u of started) {
    await u.stop();
    u.cleanup();
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** One raw HTTP/1.1 exchange, so the Host header can be anything. */
function raw(url: string, request: string): Promise<{ status: number; head: string; body: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    let got = "";
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(request));
    socket.on("data", (d) => (got += d.toString("latin1")));
    socket.on("close", () => {
      const [head = "", body = ""] = got.split("\r\n\r\n");
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
    socket.on("error", reject);
  });
}

describe("DNS rebinding", () => {
  let u: UrsaProcess;
  beforeAll(async () => {
    u = await ursa(["--allowed-hosts", "ursa.lan,.corp.example"]);
    expect((await fetch(`${u.url}/demo/s1`, { method: "PUT", headers: { "Content-Type": "text/plain" }, body: "hello" })).status).toBe(201);
  });

  test("a foreign Host is refused on every route family with 421, and nothing echoes it", async () => {
    const host = "rebind.attacker.example";
    const requests = [
      "GET /demo/s1?offset=-1",
      "POST /demo/s1",
      "PUT /demo/s2",
      "DELETE /demo/s1",
      "PUT /v1/stream/rebound",
      "GET /demo",
      "PUT /otherbucket",
      "DELETE /demo",
      "GET /demo/streams",
      "GET /",
      "GET /ui/",
      "GET /__ursula/api/info",
      "GET /__ursula/api/buckets",
      "GET /__ursula/health",
      "OPTIONS /demo/s1",
    ];
    for (const line of requests) {
      const r = await raw(u.url, `${line} HTTP/1.1\r\nHost: ${host}:${new URL(u.url).port}\r\nOrigin: http://${host}\r\nAccess-Control-Request-Method: DELETE\r\nContent-Type: text/plain\r\nContent-Length: 1\r\nConnection: close\r\n\r\nx`);
      expect([line, r.status, JSON.parse(r.body).error.code]).toEqual([line, 421, "HOST_NOT_ALLOWED"]);
      expect(r.head.toLowerCase()).not.toContain("\r\nlocation:");
      expect(r.body).not.toContain("attacker");
    }
    expect(await (await fetch(`${u.url}/demo/s1?offset=-1`)).text()).toBe("hello");
    expect((await fetch(`${u.url}/demo/s2?offset=-1`)).status).toBe(404);
    expect((await fetch(`${u.url}/v1/stream/rebound?offset=-1`)).status).toBe(404);
  });

  test("names given with --allowed-hosts are answered, and .domain covers its subdomains only", async () => {
    const get = (host: string) => raw(u.url, `GET /demo/s1?offset=-1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect([(await get("ursa.lan")).status, (await get("x.ursa.lan")).status, (await get("a.corp.example")).status, (await get("corp.example.evil")).status]).toEqual([200, 421, 200, 421]);
    expect([(await get("localhost")).status, (await get("127.0.0.1")).status, (await get("[::1]")).status]).toEqual([200, 200, 200]);
  });
});

describe("the console", () => {
  let u: UrsaProcess;
  let asset: string;
  beforeAll(async () => {
    u = await ursa();
    asset = /\/ui\/assets\/[^"]+\.js/.exec(await (await fetch(`${u.url}/ui/`)).text())![0];
  });

  test("carries a strict CSP, refuses framing and is not readable by other origins", async () => {
    for (const path of ["/ui/", "/ui/streams/demo", asset]) {
      const r = await fetch(u.url + path, { headers: { Origin: "https://evil.example" } });
      expect(r.headers.get("content-security-policy")).toContain("default-src 'self'; script-src 'self'; style-src 'self'");
      expect(r.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(r.headers.get("content-security-policy")).toContain("base-uri 'none'");
      expect(r.headers.get("x-frame-options")).toBe("DENY");
      expect(r.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  test("serves its assets precompressed by Accept-Encoding, with Vary", async () => {
    const get = async (encoding: string) => {
      const r = await new Promise<http.IncomingMessage & { bytes: Buffer }>((resolve) =>
        http.get(u.url + asset, { headers: { "Accept-Encoding": encoding } }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c) => chunks.push(c));
          res.on("end", () => resolve(Object.assign(res, { bytes: Buffer.concat(chunks) })));
        }),
      );
      return { encoding: r.headers["content-encoding"] ?? "identity", vary: r.headers.vary, bytes: r.bytes };
    };
    const plain = await get("identity");
    const br = await get("gzip, deflate, br, zstd");
    const gz = await get("gzip");
    const refusedBr = await get("br;q=0, gzip");
    expect([plain.encoding, br.encoding, gz.encoding, refusedBr.encoding]).toEqual(["identity", "br", "gzip", "gzip"]);
    expect(br.vary).toBe("Accept-Encoding");
    expect(br.bytes.length).toBeLessThan(plain.bytes.length / 2);
    expect(brotliDecompressSync(br.bytes).equals(plain.bytes)).toBe(true);
    expect(gunzipSync(gz.bytes).equals(plain.bytes)).toBe(true);
  });
});

describe("JWT bearer tokens against a JWKS served from loopback", () => {
  let u: UrsaProcess;
  let key: CryptoKey;
  let strangerKey: CryptoKey;
  let jwks: http.Server;
  const ISS = "https://issuer.e2e";
  const AUD = "ursa-e2e";
  const sign = (signWith: CryptoKey, claims: JWTPayload = {}, expiresInS = 300) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: ISS, aud: AUD, sub: "u1", client_id: "c1", jti: crypto.randomUUID(), iat: now, exp: now + expiresInS, ...claims })
      .setProtectedHeader({ alg: "ES256", typ: "at+jwt", kid: "k1" })
      .sign(signWith);
  };

  beforeAll(async () => {
    const pair = await generateKeyPair("ES256");
    key = pair.privateKey;
    strangerKey = (await generateKeyPair("ES256")).privateKey;
    const jwk = { ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" };
    jwks = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ keys: [jwk] })));
    await new Promise<void>((r) => jwks.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(jwks.address() as net.AddressInfo).port}/jwks.json`;
    u = await ursa(["--jwks", url, "--jwt-issuer", ISS, "--jwt-audience", AUD]);
  });
  afterAll(() => new Promise<void>((r) => jwks.close(() => r())));

  test("valid tokens work by their scopes and buckets; expired, wrong-audience, wrong-issuer and wrong-key ones are 401", async () => {
    const writer = await sign(key, { scope: "read write", buckets: ["demo"] });
    const put = await fetch(`${u.url}/demo/s1`, { method: "PUT", headers: { Authorization: `Bearer ${writer}`, "Content-Type": "text/plain" }, body: "jwt" });
    expect(put.status).toBe(201);
    const read = async (token: string, path = "/demo/s1?offset=-1") => {
      const r = await fetch(u.url + path, { headers: { Authorization: `Bearer ${token}` } });
      return [r.status, r.headers.get("www-authenticate")];
    };
    expect(await read(writer)).toEqual([200, null]);
    expect((await read(writer, "/other/s1?offset=-1"))[0]).toBe(404);
    expect(await read(await sign(key, { scope: "read" }, -3600))).toEqual([401, 'Bearer realm="ursa", error="invalid_token", error_description="the token has expired"']);
    expect(await read(await sign(key, { scope: "read", aud: "someone-else" }))).toEqual([401, 'Bearer realm="ursa", error="invalid_token", error_description="the token was not issued for this server"']);
    expect(await read(await sign(key, { scope: "read", iss: "https://other.issuer" }))).toEqual([401, 'Bearer realm="ursa", error="invalid_token", error_description="the token was not issued for this server"']);
    expect(await read(await sign(strangerKey, { scope: "read" }))).toEqual([401, 'Bearer realm="ursa", error="invalid_token", error_description="the token is not valid"']);
    expect((await fetch(`${u.url}/demo/s1?offset=-1`)).status).toBe(401);
  });
});

describe("start-up", () => {
  test("--require-auth without a token refuses to start: exit 2 and one line", () => {
    const r = spawnSync(BINARY, ["--port", "0", "--memory", "--require-auth"], { encoding: "utf8", timeout: 10_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n")).toEqual(["ursa: --require-auth: no --token, --token-file or --jwks is given, so anyone could read, write and delete"]);
  });

  test("listening beyond loopback without authentication is warned about loudly", async () => {
    const u = await ursa(["--host", "0.0.0.0"]);
    expect(u.log()).toContain("ursa: WARNING: listening on 0.0.0.0 without authentication");
  });

  test("quotas come from the flags", async () => {
    const u = await ursa(["--max-buckets", "1", "--max-streams-per-bucket", "1"]);
    const put = (path: string) => fetch(u.url + path, { method: "PUT", headers: { "Content-Type": "text/plain" } });
    expect([(await put("/qqqq/a")).status, (await put("/qqqq/b")).status, (await put("/rrrr/a")).status]).toEqual([201, 429, 429]);
  });
});

describe("no token value reaches the server's output", () => {
  test("header and access_token, valid and wrong, on reads, live reads, writes and errors", { timeout: 20_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "ursa-tokens-"));
    dirs.push(dir);
    const admin = "adm1n-t0ken-9f8e7d6c5b4a";
    const reader = "r3ader-t0ken-1a2b3c4d5e6f";
    const wrong = "wr0ng-t0ken-0a9b8c7d6e5f";
    writeFileSync(join(dir, "tokens"), `${admin} read,write,admin\n${reader} read demo\n`);
    const u = await ursa(["--token-file", join(dir, "tokens")]);
    const seen: string[] = [];
    const call = async (path: string, init: RequestInit = {}) => {
      const r = await fetch(u.url + path, init);
      seen.push(JSON.stringify([...r.headers]), init.method === "HEAD" || path.includes("live=sse") ? "" : await r.text());
      return r.status;
    };
    const auth = (t: string) => ({ Authorization: `Bearer ${t}` });
    expect(await call("/demo/s1", { method: "PUT", headers: { ...auth(admin), "Content-Type": "text/plain" }, body: "x" })).toBe(201);
    expect(await call("/demo/s1", { method: "POST", headers: { ...auth(admin), "Content-Type": "text/plain" }, body: "y" })).toBe(204);
    expect(await call("/demo/s1?offset=-1", { headers: auth(reader) })).toBe(200);
    expect(await call(`/demo/s1?offset=-1&access_token=${reader}`)).toBe(200);
    expect(await call(`/demo/s1?offset=-1&live=long-poll&access_token=${reader}`)).toBe(200);
    const sse = new AbortController();
    expect(await call(`/demo/s1?offset=-1&live=sse&access_token=${reader}`, { signal: sse.signal })).toBe(200);
    sse.abort();
    expect(await call(`/demo/s1?offset=-1&access_token=${wrong}`)).toBe(401);
    expect(await call("/demo/s1?offset=-1", { headers: auth(wrong) })).toBe(401);
    expect(await call(`/demo/s1?access_token=${admin}`, { method: "POST", headers: { "Content-Type": "text/plain" }, body: "z" })).toBe(401);
    expect(await call(`/demo/s2?access_token=${admin}`, { method: "PUT", headers: { ...auth(admin), "Content-Type": "text/plain" } })).toBe(201);
    expect(await call(`/demo/s1?offset=-1&access_token=${reader}`, { headers: auth(reader) })).toBe(400);
    expect(await call("/demo/s1", { method: "DELETE", headers: auth(reader) })).toBe(403);
    expect(await call("/__ursula/api/whoami", { headers: auth(reader) })).toBe(200);
    expect(await call("/__ursula/api/info", { headers: auth(admin) })).toBe(200);
    expect(await u.stop()).toBe(0);
    const output = u.log();
    for (const token of [admin, reader, wrong]) {
      expect(output).not.toContain(token);
      for (const s of seen) expect(s).not.toContain(token);
    }
    expect(output).toContain("listening");
  });
});
