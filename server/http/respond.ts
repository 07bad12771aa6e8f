// Small response helpers that keep the common headers on everything.

import { baseHeaders, H } from "./headers";

export function json(value: unknown, status = 200): Response {
  const h = baseHeaders();
  h.set(H.contentType, "application/json");
  return new Response(JSON.stringify(value), { status, headers: h });
}

export function empty(status: number): Response {
  return new Response(null, { status, headers: baseHeaders() });
}
