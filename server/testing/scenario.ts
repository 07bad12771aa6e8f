// One row of a table-driven HTTP scenario (spec §10): a request, the status and stable code it
// must get, headers it must and must not carry, and the streams it must leave exactly as they
// were (their harness fingerprints) or must not have created.

import { expect } from "bun:test";
import type { Harness } from "./app-harness";

export interface Scenario {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  status: number;
  code?: string;
  has?: Record<string, string | RegExp>;
  lacks?: string[];
  /** Stream keys (`bucket/name`) whose fingerprints must not change. */
  unchanged?: string[];
  /** A stream key that must still not exist afterwards. */
  absent?: string;
}

export const scenarioTitle = (s: Scenario) => `${s.method} ${s.name} → ${s.status}${s.code ? ` ${s.code}` : ""}`;

/** Runs `s` against `h`; `settle` runs before the fingerprints are compared again. */
export async function runScenario(h: Harness, s: Scenario, settle: () => Promise<void> = async () => {}): Promise<void> {
  const before = await Promise.all((s.unchanged ?? []).map((k) => h.fingerprint(k)));
  for (const f of before) expect(f).not.toBeNull();
  const res = await h.request(s.method, s.path, { headers: s.headers, body: s.body });
  expect(res.status).toBe(s.status);
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  if (s.code) {
    expect(res.headers.get("Content-Type")).toBe("application/json");
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe(s.code);
    expect(body.error.message.length).toBeGreaterThan(0);
  }
  for (const [name, want] of Object.entries(s.has ?? {})) {
    const got = res.headers.get(name);
    if (want instanceof RegExp) expect(got ?? "").toMatch(want);
    else expect(got).toBe(want);
  }
  for (const name of s.lacks ?? []) expect(res.headers.get(name)).toBeNull();
  await settle();
  for (const [i, k] of (s.unchanged ?? []).entries()) expect(await h.fingerprint(k)).toBe(before[i]!);
  if (s.absent) expect(await h.fingerprint(s.absent)).toBeNull();
}

/** The request, which setup expects to succeed: anything from 300 up fails the test's setup. */
export async function setupRequest(h: Harness, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<void> {
  const r = await h.request(method, path, { headers, body });
  if (r.status >= 300) throw new Error(`setup ${method} ${path}: ${r.status} ${await r.text()}`);
}

/**
 * The streams every scenario table starts from: a JSON stream with a Stream-Seq and a producer,
 * a text stream with a TTL, and a closed one.
 */
export async function seedScenarioStreams(h: Harness): Promise<void> {
  await setupRequest(h, "PUT", "/test-b/json", { "Content-Type": "application/json" });
  await setupRequest(h, "POST", "/test-b/json", { "Content-Type": "application/json", "Stream-Seq": "005", "Producer-Id": "p1", "Producer-Epoch": "1", "Producer-Seq": "0" }, '[{"n":1},{"n":2}]');
  await setupRequest(h, "PUT", "/test-b/text", { "Content-Type": "text/plain", "Stream-TTL": "3600" }, "hello");
  await setupRequest(h, "PUT", "/test-b/closed", { "Content-Type": "text/plain", "Stream-Closed": "true" }, "final");
}
