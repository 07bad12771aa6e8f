// Stream-Cursor (spec §3.5): a CDN collapsing key in 20 s intervals since 2024-10-09, always
// strictly greater than the cursor the client echoed. It never positions a read.

const EPOCH_MS = Date.UTC(2024, 9, 9);
const INTERVAL_MS = 20_000;

export function streamCursor(nowMs: number, clientCursor: string | null, random: () => number = Math.random): string {
  const interval = Math.floor((nowMs - EPOCH_MS) / INTERVAL_MS);
  const echoed = clientCursor !== null && /^[0-9]{1,15}$/.test(clientCursor) ? Number(clientCursor) : null;
  if (echoed === null || echoed < interval) return String(interval);
  const jitterSeconds = 1 + Math.floor(random() * 3600);
  return String(echoed + Math.ceil(jitterSeconds / 20));
}
