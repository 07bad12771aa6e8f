// Every `curl` example in README.md and docs/*.md, run as written against the compiled binary, in
// the order of its page, on a fresh data directory per page: the docs cannot drift from what ursa
// answers. After each command the page shows the answer as comment lines, which a reader sees and
// this test checks:
//
//   curl -i -X PUT $U/demo
//   # HTTP/1.1 201 Created
//   # Stream-Next-Offset: 0000000000000000_0000000000000000
//   # Stream-Incarnation: …          (present, any value)
//   # error: BUCKET_NOT_EMPTY        (the JSON body's error code)
//
// Every curl must show at least its status line. A page's examples that need another server mode
// say so in an HTML comment before their block, `<!-- examples: tokens -->`, and run against a
// binary started in that mode (MODES below). The host:port a page names is rewritten to the test
// server's, and $U set to it.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startUrsa, type UrsaProcess } from "./server-process.ts";

const ROOT = resolve(import.meta.dirname, "..");
const DOC_ADDRESS = "http://127.0.0.1:4437";
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).sort().map((f) => `docs/${f}`)];

interface Expected {
  status: string;
  headers: [string, string][];
  error: string | null;
}

interface Example {
  page: string;
  line: number;
  command: string;
  mode: string;
  expected: Expected | null;
}

/** The curl commands of a page's sh blocks, each with the answer the page shows after it. */
export function examplesOf(page: string, text: string): Example[] {
  const lines = text.split("\n");
  const out: Example[] = [];
  let mode = "default";
  for (let i = 0; i < lines.length; i++) {
    const marker = /^<!-- examples: (\S+) -->$/.exec(lines[i]!);
    if (marker) {
      mode = marker[1]!;
      continue;
    }
    if (lines[i] !== "```sh") continue;
    let j = i + 1;
    for (; j < lines.length && lines[j] !== "```"; j++) {
      const start = j;
      let command = lines[j]!;
      while (command.endsWith("\\") && j + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++j]!.trim()}`;
      if (!/(^|\|\s*)curl /.test(command) || command.startsWith("#")) continue;
      const shown: string[] = [];
      while (j + 1 < lines.length && /^# \S/.test(lines[j + 1]!) && (shown.length > 0 || lines[j + 1]!.startsWith("# HTTP/"))) shown.push(lines[++j]!.slice(2));
      out.push({ page, line: start + 1, command, mode, expected: shown.length ? parseShown(shown) : null });
    }
    i = j;
    mode = "default";
  }
  return out;
}

function parseShown(shown: string[]): Expected {
  const [status, ...rest] = shown;
  const headers: [string, string][] = [];
  let error: string | null = null;
  for (const line of rest) {
    const colon = line.indexOf(": ");
    if (colon < 0) throw new Error(`not a header line: ${line}`);
    const name = line.slice(0, colon);
    const value = line.slice(colon + 2).trim();
    if (name === "error") error = value;
    else headers.push([name.toLowerCase(), value]);
  }
  return { status: status!.trim(), headers, error };
}

interface Answer {
  exit: number;
  status: string;
  headers: Map<string, string>;
  body: string;
}

/**
 * Runs one command in bash, as a reader would paste it, with `curl` wrapped so that the headers and
 * body of its answer land in files (the last of them, after a redirect). An SSE read is cut off.
 */
function run(command: string, url: string, env: Record<string, string>): Promise<Answer> {
  const dir = mkdtempSync(join(tmpdir(), "ursa-docs-"));
  const headersFile = join(dir, "headers");
  const bodyFile = join(dir, "body");
  writeFileSync(headersFile, "");
  writeFileSync(bodyFile, "");
  const sse = /live=sse/.test(command);
  const script = [`curl() { command curl "$@" --no-include -sS -D '${headersFile}' -o '${bodyFile}' --max-time ${sse ? 2 : 15}; }`, command.replaceAll(DOC_ADDRESS, url)].join("\n");
  return new Promise((done) => {
    execFile("bash", ["-c", script], { env: { ...process.env, ...env, U: url }, timeout: 30_000 }, (error) => {
      const exit = error ? ((error as { code?: number }).code ?? 1) : 0;
      const blocks = readFileSync(headersFile, "utf8").split(/\r?\n\r?\n/).filter((b) => b.startsWith("HTTP/"));
      const last = (blocks[blocks.length - 1] ?? "").split(/\r?\n/);
      const headers = new Map<string, string>();
      for (const line of last.slice(1)) {
        const colon = line.indexOf(":");
        if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
      }
      const body = readFileSync(bodyFile, "utf8");
      rmSync(dir, { recursive: true, force: true });
      done({ exit, status: (last[0] ?? "").trim(), headers, body });
    });
  });
}

/** What differs between the answer and what the page shows; empty when they agree. */
function differences(expected: Expected, got: Answer, url: string): string[] {
  const out: string[] = [];
  if (got.status !== expected.status) out.push(`status: the page shows "${expected.status}", ursa answered "${got.status}"`);
  for (const [name, value] of expected.headers) {
    const actual = got.headers.get(name);
    if (actual === undefined) out.push(`header ${name}: shown, but not in the answer`);
    else if (value !== "…" && actual !== value.replaceAll(DOC_ADDRESS, url)) out.push(`header ${name}: the page shows "${value}", ursa answered "${actual}"`);
  }
  if (expected.error !== null) {
    let code: string | undefined;
    try {
      code = (JSON.parse(got.body) as { error?: { code?: string } }).error?.code;
    } catch {}
    if (code !== expected.error) out.push(`error: the page shows ${expected.error}, the body is ${got.body.slice(0, 200)}`);
  }
  return out;
}

const TOKENS = { admin: "docs-admin-0123456789abcdef", reader: "docs-reader-0123456789abcdef" };

/** Server modes a page's examples may ask for, and what each sets up before they run. */
const MODES: Record<string, (dataDir: string) => Promise<{ server: UrsaProcess; env: Record<string, string> }>> = {
  async default() {
    return { server: await startUrsa(), env: {} };
  },
  // docs/security.md: a read-only token limited to bucket demo ($READER), and streams in demo and
  // in a bucket it cannot see, made by an admin token.
  async tokens(dir) {
    const file = join(dir, "tokens.txt");
    writeFileSync(file, `${TOKENS.reader} read demo,logs\n${TOKENS.admin} read,write,admin\n`);
    const server = await startUrsa({ args: ["--token-file", file] });
    for (const path of ["/demo/orders", "/private/orders"]) {
      const res = await fetch(`${server.url}${path}`, { method: "PUT", headers: { authorization: `Bearer ${TOKENS.admin}`, "content-type": "application/json" } });
      expect(res.status).toBe(201);
    }
    return { server, env: { READER: TOKENS.reader } };
  },
};

const started: UrsaProcess[] = [];
const scratch = mkdtempSync(join(tmpdir(), "ursa-docs-modes-"));
afterAll(async () => {
  for (const s of started) {
    await s.stop();
    s.cleanup();
  }
  rmSync(scratch, { recursive: true, force: true });
});

const servers = new Map<string, Promise<{ server: UrsaProcess; env: Record<string, string> }>>();
/** One fresh binary per page and mode, started when its first example runs. */
function serverFor(page: string, mode: string) {
  const key = `${page} ${mode}`;
  if (!servers.has(key)) {
    const make = MODES[mode];
    if (!make) throw new Error(`${page}: unknown examples mode ${mode}`);
    servers.set(
      key,
      make(mkdtempSync(join(scratch, "m-"))).then((s) => {
        started.push(s.server);
        return s;
      }),
    );
  }
  return servers.get(key)!;
}

for (const page of PAGES) {
  const examples = examplesOf(page, readFileSync(join(ROOT, page), "utf8"));
  if (examples.length === 0) continue;
  describe(page, () => {
    for (const ex of examples) {
      test(`${page}:${ex.line} ${ex.command.slice(0, 90)}`, { timeout: 40_000 }, async () => {
        expect(ex.expected, `${page}:${ex.line} shows no answer after the command (a "# HTTP/1.1 …" line)`).not.toBeNull();
        const { server, env } = await serverFor(page, ex.mode);
        const got = await run(ex.command, server.url, env);
        // A live read is cut off by --max-time (28) once its headers are in.
        expect(got.exit === 0 || (got.exit === 28 && /live=sse/.test(ex.command)), `curl exited ${got.exit}`).toBe(true);
        expect(differences(ex.expected!, got, server.url), `${page}:${ex.line}`).toEqual([]);
      });
    }
  });
}

describe("the checker", () => {
  test("reads commands and the answers shown after them, and reports what differs", () => {
    const page = ["<!-- examples: tokens -->", "```sh", "# a comment", "curl -i -X PUT $U/demo \\", "  -H 'A: b'", "# HTTP/1.1 201 Created", "# Stream-Incarnation: …", "# error: X", "curl -s $U/demo", "```", "```sh", "curl -I $U/x", "# HTTP/1.1 200 OK", "printf 'x' | \\", "  curl -i $U/y --data-binary @-", "# HTTP/1.1 204 No Content", "```"].join("\n");
    const found = examplesOf("p.md", page);
    expect(found.map((e) => [e.line, e.command, e.mode])).toEqual([
      [4, "curl -i -X PUT $U/demo  -H 'A: b'", "tokens"],
      [9, "curl -s $U/demo", "tokens"],
      [12, "curl -I $U/x", "default"],
      [14, "printf 'x' |  curl -i $U/y --data-binary @-", "default"],
    ]);
    expect(found[0]!.expected).toEqual({ status: "HTTP/1.1 201 Created", headers: [["stream-incarnation", "…"]], error: "X" });
    expect(found[1]!.expected).toBeNull();
    const answer: Answer = { exit: 0, status: "HTTP/1.1 409 Conflict", headers: new Map(), body: '{"error":{"code":"Y"}}' };
    expect(differences(found[0]!.expected!, answer, "http://x")).toEqual([
      'status: the page shows "HTTP/1.1 201 Created", ursa answered "HTTP/1.1 409 Conflict"',
      "header stream-incarnation: shown, but not in the answer",
      'error: the page shows X, the body is {"error":{"code":"Y"}}',
    ]);
  });
});
