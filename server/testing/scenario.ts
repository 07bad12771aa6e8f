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
  const before = (s.unchanged ?? []).map((k) => h.fingerprint(k));
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
  (s.unchanged ?? []).forEach((k, i) => expect(h.fingerprint(k)).toBe(before[i]!));
  if (s.absent) expect(h.fingerprint(s.absent)).toBeNull();
}
