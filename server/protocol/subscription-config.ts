// A subscription's configuration as the DS reserved API sends it (`PUT __ds/subscriptions/{id}`):
// parsed once into a value, and compared by its canonical form, so a repeated PUT with the same
// configuration re-confirms (200) and a different one conflicts (409). Pure: no URL check here
// beyond its shape (webhook-url.ts decides which addresses may be called).

export type SubscriptionType = "webhook" | "pull-wake";

export interface SubscriptionConfig {
  type: SubscriptionType;
  /** A glob over stream paths: `*` is one segment, `**` any number (subscription-glob.ts). */
  pattern: string | null;
  /** Streams linked explicitly, in the order first named, without repeats. */
  streams: string[];
  webhookUrl: string | null;
  /** The stream pull-wake events are appended to. */
  wakeStream: string | null;
  leaseTtlMs: number;
  description: string | null;
}

export const DEFAULT_LEASE_TTL_MS = 30_000;
export const MIN_LEASE_TTL_MS = 1_000;
export const MAX_LEASE_TTL_MS = 600_000;

/** Why a configuration is refused: the message a client reads with INVALID_REQUEST. */
export type ConfigParsed = { ok: true; value: SubscriptionConfig } | { ok: false; message: string };

/** Leading and trailing slashes carry no meaning in a stream path or a pattern. */
export function normalizeStreamPath(path: string): string {
  return path.replace(/^\/+/, "").replace(/\/+$/, "");
}

export function parseSubscriptionConfig(body: unknown): ConfigParsed {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return refuse("the body must be a JSON object");
  const b = body as Record<string, unknown>;
  if (b.type !== "webhook" && b.type !== "pull-wake") return refuse('type must be "webhook" or "pull-wake"');
  const pattern = typeof b.pattern === "string" && b.pattern.length > 0 ? normalizeStreamPath(b.pattern) : null;
  if (b.streams !== undefined && !Array.isArray(b.streams)) return refuse("streams must be an array of stream paths");
  const named = (b.streams as unknown[] | undefined) ?? [];
  if (named.some((s) => typeof s !== "string" || normalizeStreamPath(s).length === 0)) return refuse("streams must contain only non-empty strings");
  const streams = [...new Set(named.map((s) => normalizeStreamPath(s as string)))];
  if (pattern === null && streams.length === 0) return refuse("at least one of pattern or streams is required");
  const ttl = b.lease_ttl_ms ?? DEFAULT_LEASE_TTL_MS;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < MIN_LEASE_TTL_MS || ttl > MAX_LEASE_TTL_MS) {
    return refuse(`lease_ttl_ms must be an integer from ${MIN_LEASE_TTL_MS} to ${MAX_LEASE_TTL_MS}`);
  }
  let webhookUrl: string | null = null;
  if (b.type === "webhook") {
    const hook = b.webhook as { url?: unknown } | undefined;
    if (hook === null || typeof hook !== "object" || typeof hook.url !== "string" || hook.url.length === 0) return refuse("webhook subscriptions require webhook.url");
    webhookUrl = hook.url;
  }
  const wakeStream = typeof b.wake_stream === "string" && b.wake_stream.length > 0 ? normalizeStreamPath(b.wake_stream) : null;
  if (b.type === "pull-wake" && wakeStream === null) return refuse("pull-wake subscriptions require wake_stream");
  if (b.description !== undefined && typeof b.description !== "string") return refuse("description must be a string");
  return {
    ok: true,
    value: { type: b.type, pattern, streams, webhookUrl, wakeStream, leaseTtlMs: ttl, description: (b.description as string | undefined) ?? null },
  };
}

/** The form two configurations are compared by: explicit streams as a set. */
export function canonicalConfig(config: SubscriptionConfig): string {
  return JSON.stringify({ ...config, streams: [...config.streams].sort() });
}

export function sameConfig(a: SubscriptionConfig, b: SubscriptionConfig): boolean {
  return canonicalConfig(a) === canonicalConfig(b);
}

const refuse = (message: string): ConfigParsed => ({ ok: false, message });
