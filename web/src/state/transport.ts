// Every protocol request the console makes goes through `recorded`: it sends, records the
// exchange on the timeline, and after a write tells whoever shows that stream to re-read it
// (the issue: "never shows stale state after a write").
import type { Exchange, ProtocolRequest } from "../api/types";
import { send, type SendOptions } from "../api/exchange";
import { attempts, type AttemptSource } from "./attempts";
import { streamPathOf } from "../api/paths";

/** What the labs and models need: send one request, get the exchange back. */
export type Transport = (req: ProtocolRequest, opts?: { keepBytes?: boolean; signal?: AbortSignal; maxReadMs?: number }) => Promise<Exchange>;

type ChangeListener = (path: string, ex: Exchange) => void;
const listeners = new Set<ChangeListener>();

/**
 * Subscribe to "a write was sent to this stream path" (a write to one of its sub-resources, such
 * as its attributes or its snapshot, names the stream). Returns the unsubscribe function.
 */
export function onStreamChanged(fn: ChangeListener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function pathOf(requestPath: string): string {
  const q = requestPath.indexOf("?");
  return q < 0 ? requestPath : requestPath.slice(0, q);
}

export function recorded(source: AttemptSource, base: SendOptions = {}): Transport {
  return async (req, opts) => {
    const ex = await send(req, { ...base, ...opts });
    attempts.record(ex, source);
    if (req.method !== "GET" && req.method !== "HEAD") for (const fn of listeners) fn(streamPathOf(req.path), ex);
    return ex;
  };
}
