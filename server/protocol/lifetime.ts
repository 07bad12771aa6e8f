// TTL and Expires-At (spec §7.1): a sliding TTL renewed by reads and writes (never by HEAD),
// and an absolute instant that is never renewed.

import { fail, ok, type Parsed } from "./errors";

const TTL = /^(0|[1-9][0-9]*)$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

export interface Lifetime {
  ttlSeconds: number | null;
  expiresAtMs: number | null;
}

export function parseLifetime(ttlRaw: string | null, expiresRaw: string | null): Parsed<Lifetime> {
  if (ttlRaw !== null && expiresRaw !== null) {
    return fail("INVALID_RETENTION", "send Stream-TTL or Stream-Expires-At, not both");
  }
  if (ttlRaw !== null) {
    const value = ttlRaw.trim();
    if (!TTL.test(value)) return fail("INVALID_RETENTION", "Stream-TTL must be a whole number of seconds, without sign or leading zeros");
    const seconds = Number(value);
    if (seconds * 1000 > Number.MAX_SAFE_INTEGER) return fail("INVALID_RETENTION", "Stream-TTL is too large");
    return ok({ ttlSeconds: seconds, expiresAtMs: null });
  }
  if (expiresRaw !== null) {
    const ms = parseRfc3339(expiresRaw.trim());
    if (ms === null) return fail("INVALID_RETENTION", "Stream-Expires-At must be an RFC 3339 timestamp with a zone, at or after 1970");
    return ok({ ttlSeconds: null, expiresAtMs: ms });
  }
  return ok({ ttlSeconds: null, expiresAtMs: null });
}

/** Strict RFC 3339: Date.parse accepts far too much, so check every field ourselves. */
export function parseRfc3339(raw: string): number | null {
  const m = RFC3339.exec(raw);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  let offsetMinutes = 0;
  if (m[9] !== undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === "-" ? -1 : 1) * (oh * 60 + om);
  }
  const fraction = m[7] ? Math.floor(Number(m[7]) * 1000) : 0;
  const ms = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59)) + fraction - offsetMinutes * 60_000;
  return ms < 0 ? null : ms;
}

export function formatRfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

export interface LifetimeState extends Lifetime {
  touchedAtMs: number;
}

export function expiryTimeMs(state: LifetimeState): number | null {
  if (state.expiresAtMs !== null) return state.expiresAtMs;
  if (state.ttlSeconds !== null) return state.touchedAtMs + state.ttlSeconds * 1000;
  return null;
}

export function isExpired(state: LifetimeState, nowMs: number): boolean {
  const at = expiryTimeMs(state);
  return at !== null && nowMs >= at;
}
