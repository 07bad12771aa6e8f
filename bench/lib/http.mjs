// A minimal HTTP/1.1 client over one keep-alive socket per Conn.
//
// Why not node:http or fetch: on a 2-core machine the load generator shares the CPU with the
// server under test, and node:http spends tens of microseconds per request in its agent, header
// objects and stream machinery. This client writes one preformatted buffer per request and parses
// only what the benchmark needs (status line, headers, Content-Length or chunked body), which keeps
// the client well below the server's cost per request. It talks to 127.0.0.1 only.
//
// One request at a time per Conn (no pipelining). A Conn reconnects transparently when the server
// closed it (Connection: close, idle timeout) before the next request is written.
import net from "node:net";

const CRLF2 = Buffer.from("\r\n\r\n");
const LOOPBACK = "127.0.0.1";
// Every socket of this thread reads into this one buffer (net.connect's onread), and whatever a
// Conn keeps past the callback it copies out. Node's default gives each read a fresh 64 KiB
// Buffer: 128 of them per 8 MiB catch-up response, whose page faults and collections stalled the
// client for 25-40 ms in most responses (a Bun.serve answering 8 MiB from one buffer: 370-450
// MB/s with a Buffer per read, 1.4-3.3 GB/s reading into one buffer, the same run).
const READ_BUFFER = Buffer.alloc(64 * 1024);

/** Parse "http://127.0.0.1:PORT" and refuse anything that is not loopback. */
export function loopbackTarget(url) {
  const u = new URL(url);
  if (u.hostname !== LOOPBACK) throw new Error(`bench talks to ${LOOPBACK} only, got ${url}`);
  return { host: LOOPBACK, port: Number(u.port) };
}

export class HttpError extends Error {}

/**
 * @typedef {{ status: number, headers: Record<string,string>, body: Buffer | null, bytes: number }} Res
 * headers: lower-case names; a repeated header keeps the last value.
 * body: null when the request asked to discard it (bytes still counts it).
 */

export class Conn {
  /** @param {string} url base URL, e.g. http://127.0.0.1:4437 */
  /** `localAddress`: the loopback address to connect from (127.0.0.2 is another client to the server). */
  constructor(url, { idleReconnectMs = 3000, localAddress = undefined } = {}) {
    const { host, port } = loopbackTarget(url);
    this.host = host;
    this.port = port;
    this.hostHeader = `Host: ${host}:${port}\r\n`;
    this.socket = null;
    this.idleReconnectMs = idleReconnectMs;
    this.localAddress = localAddress;
    this.lastUsed = 0;
    this.pending = null; // the in-flight request's parser state
    this.closed = false;
    this.connects = 0;
  }

  async connect() {
    if (this.socket && !this.socket.destroyed && performance.now() - this.lastUsed < this.idleReconnectMs) return;
    if (this.socket) this.socket.destroy();
    const socket = net.connect({
      host: this.host,
      port: this.port,
      localAddress: this.localAddress,
      noDelay: true,
      onread: { buffer: READ_BUFFER, callback: (n, buf) => this.#onData(buf.subarray(0, n)) },
    });
    this.connects++;
    await new Promise((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    socket.removeAllListeners("error");
    socket.on("error", (err) => this.#fail(err));
    socket.on("close", () => {
      if (this.socket === socket) this.socket = null;
      this.#onClose();
    });
    this.socket = socket;
    this.lastUsed = performance.now();
  }

  /**
   * Send one request and resolve with the complete response.
   * @param {string} method
   * @param {string} path  starts with "/"
   * @param {string} headerLines preformatted "Name: value\r\n" lines (no Host, no Content-Length)
   * @param {Buffer|string|null} body
   * @param {{ discardBody?: boolean, onData?: (buf: Buffer) => void, onHead?: (res: Res) => void }} [opts]
   *   discardBody: count body bytes without keeping them. onData: stream the decoded body
   *   (used for SSE); the promise then resolves only when the response ends. Each piece is a
   *   view of the thread's read buffer, valid only during the call: copy what you keep.
   * @returns {Promise<Res>}
   */
  async request(method, path, headerLines = "", body = null, opts = {}) {
    if (this.pending) throw new Error("Conn is busy: one request at a time");
    await this.connect();
    let head = `${method} ${path} HTTP/1.1\r\n${this.hostHeader}${headerLines}`;
    let buf;
    if (body == null) {
      buf = Buffer.from(method === "POST" || method === "PUT" ? head + "Content-Length: 0\r\n\r\n" : head + "\r\n", "latin1");
    } else if (typeof body === "string") {
      const len = Buffer.byteLength(body);
      buf = Buffer.from(`${head}Content-Length: ${len}\r\n\r\n${body}`, "utf8");
    } else {
      head += `Content-Length: ${body.length}\r\n\r\n`;
      buf = body.length < 16384 ? Buffer.concat([Buffer.from(head, "latin1"), body]) : null;
      if (!buf) {
        this.socket.cork();
        this.socket.write(head, "latin1");
        this.socket.write(body);
        process.nextTick(() => this.socket?.uncork());
      }
    }
    return new Promise((resolve, reject) => {
      this.pending = {
        resolve,
        reject,
        isHead: method === "HEAD",
        discard: !!opts.discardBody || !!opts.onData,
        onData: opts.onData,
        onHead: opts.onHead,
        state: 0, // 0 head, 1 fixed body, 2 chunked, 3 until close
        headBuf: null,
        res: null,
        remaining: 0,
        parts: [],
        chunkState: null,
      };
      if (buf) this.socket.write(buf);
    });
  }

  close() {
    this.closed = true;
    if (this.socket) this.socket.destroy();
    this.socket = null;
  }

  #fail(err) {
    const p = this.pending;
    this.pending = null;
    if (this.socket) this.socket.destroy();
    this.socket = null;
    if (p) p.reject(err instanceof Error ? err : new HttpError(String(err)));
  }

  #onClose() {
    const p = this.pending;
    if (!p) return;
    if (p.state === 3) return this.#finish();
    this.#fail(new HttpError(`connection closed mid-response (state ${p.state})`));
  }

  #finish() {
    const p = this.pending;
    this.pending = null;
    this.lastUsed = performance.now();
    const res = p.res;
    if (!p.discard) res.body = p.parts.length === 1 ? p.parts[0] : Buffer.concat(p.parts);
    if (res.headers.connection?.toLowerCase() === "close" || p.state === 3) {
      this.socket?.destroy();
      this.socket = null;
    }
    p.resolve(res);
  }

  #onData(chunk) {
    const p = this.pending;
    if (!p) {
      // Unsolicited bytes: the server is broken or we lost sync. Drop the connection.
      this.socket?.destroy();
      this.socket = null;
      return;
    }
    try {
      this.#consume(p, chunk);
    } catch (err) {
      this.#fail(err);
    }
  }

  #consume(p, chunk) {
    if (p.state === 0) {
      const data = p.headBuf ? Buffer.concat([p.headBuf, chunk]) : chunk;
      const end = data.indexOf(CRLF2);
      if (end < 0) {
        if (data.length > 65536) throw new HttpError("response head too large");
        p.headBuf = Buffer.from(data);
        return;
      }
      p.headBuf = null;
      p.res = parseHead(data.latin1Slice(0, end));
      const rest = data.subarray(end + 4);
      const { status, headers } = p.res;
      if (status >= 100 && status < 200) {
        // 1xx interim: skip it and parse the next head.
        p.res = null;
        if (rest.length) this.#consume(p, rest);
        return;
      }
      p.onHead?.(p.res);
      if (p.isHead || status === 204 || status === 304) {
        p.res.bytes = 0;
        this.#finish();
        return;
      }
      const te = headers["transfer-encoding"];
      if (te && te.toLowerCase().includes("chunked")) {
        p.state = 2;
        p.chunkState = { size: -1, line: "", trailer: false };
      } else if (headers["content-length"] !== undefined) {
        p.state = 1;
        p.remaining = Number(headers["content-length"]);
        if (p.remaining === 0) {
          this.#finish();
          return;
        }
      } else {
        p.state = 3;
      }
      if (rest.length) this.#consume(p, rest);
      return;
    }
    if (p.state === 1) {
      const take = Math.min(p.remaining, chunk.length);
      this.#body(p, take === chunk.length ? chunk : chunk.subarray(0, take));
      p.remaining -= take;
      if (p.remaining === 0) {
        this.#finish();
        if (take < chunk.length) throw new HttpError("extra bytes after response body");
      }
      return;
    }
    if (p.state === 3) {
      this.#body(p, chunk);
      return;
    }
    // chunked
    const cs = p.chunkState;
    let i = 0;
    while (i < chunk.length) {
      if (cs.size === -1) {
        // reading a size line (or a trailer line after the last chunk)
        const nl = chunk.indexOf(10, i);
        if (nl < 0) {
          cs.line += chunk.latin1Slice(i);
          return;
        }
        const line = (cs.line + chunk.latin1Slice(i, nl)).replace(/\r$/, "");
        cs.line = "";
        i = nl + 1;
        if (cs.trailer) {
          if (line === "") {
            this.#finish();
            if (i < chunk.length) throw new HttpError("extra bytes after chunked body");
            return;
          }
          continue;
        }
        if (line === "") continue; // CRLF that ends a chunk's data
        const size = parseInt(line, 16);
        if (!Number.isFinite(size)) throw new HttpError(`bad chunk size line ${JSON.stringify(line)}`);
        if (size === 0) cs.trailer = true;
        else cs.size = size;
        continue;
      }
      const take = Math.min(cs.size, chunk.length - i);
      this.#body(p, chunk.subarray(i, i + take));
      i += take;
      cs.size -= take;
      if (cs.size === 0) cs.size = -1;
    }
  }

  /** `buf` is a view of READ_BUFFER: a kept body gets a copy; onData decodes it during the call. */
  #body(p, buf) {
    p.res.bytes += buf.length;
    if (p.onData) p.onData(buf);
    else if (!p.discard) p.parts.push(Buffer.from(buf));
  }
}

function parseHead(text) {
  const lines = text.split("\r\n");
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]);
  if (!m) throw new HttpError(`bad status line ${JSON.stringify(lines[0])}`);
  const headers = {};
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const c = line.indexOf(":");
    if (c <= 0) continue;
    headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
  }
  return { status: Number(m[1]), headers, body: null, bytes: 0 };
}

/** Format a header object as preformatted lines for Conn.request. */
export function headerLines(obj) {
  let s = "";
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null) s += `${k}: ${v}\r\n`;
  return s;
}

/** One-shot helper for setup and verification traffic (not for measured loops). */
export async function once(url, method, path, headers = {}, body = null, opts = {}) {
  const c = new Conn(url);
  try {
    return await c.request(method, path, headerLines(headers), body, opts);
  } finally {
    c.close();
  }
}

/** A small pool of Conns for setup traffic with bounded concurrency. */
export async function forEachConcurrent(items, concurrency, url, fn) {
  const conns = Array.from({ length: Math.min(concurrency, items.length) }, () => new Conn(url));
  let next = 0;
  try {
    await Promise.all(
      conns.map(async (conn) => {
        while (next < items.length) {
          const i = next++;
          await fn(conn, items[i], i);
        }
      }),
    );
  } finally {
    for (const c of conns) c.close();
  }
}
