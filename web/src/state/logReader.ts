// Reading a JSON stream to its tail the way the recipe of Ursula v0.9.0, Conditional Writes, says:
// consistency=leader,
// continue from Stream-Next-Offset, stop at Stream-Up-To-Date: true. Shared by the labs
// and the composer's retry.
import type { ProtocolRequest } from "../api/types";
import { getHeader } from "../api/headers";
import { splitJsonArray } from "../api/jsonArray";
import type { Transport } from "./transport";

export interface ReadToTailOptions {
  maxBytes?: number;
  /** The pitfall: take the first response as the whole story. */
  stopAfterFirst?: boolean;
  /** Stop once the read reaches this byte position (for "read on up to Stream-Next-Offset"). */
  untilPosition?: number;
  headers?: [string, string][];
}

export interface ReadToTailResult {
  messages: string[];
  to: string;
  responses: number;
  upToDate: boolean;
  error?: string;
}

const MAX_RESPONSES = 100_000;

export async function readToTail(transport: Transport, path: string, from: string, opts: ReadToTailOptions = {}): Promise<ReadToTailResult> {
  const messages: string[] = [];
  let offset = from;
  let responses = 0;
  while (responses < MAX_RESPONSES) {
    const q = new URLSearchParams({ offset, consistency: "leader" });
    if (opts.maxBytes !== undefined) q.set("max_bytes", String(opts.maxBytes));
    const req: ProtocolRequest = { method: "GET", path: `${path}?${q.toString()}`, headers: opts.headers ?? [] };
    const ex = await transport(req);
    responses++;
    const res = ex.response;
    if (!res || res.status !== 200) {
      return { messages, to: offset, responses, upToDate: false, error: ex.networkError ?? `${res?.status} ${ex.errorCode ?? ""}`.trim() };
    }
    try {
      messages.push(...splitJsonArray(res.bodyText));
    } catch {
      return { messages, to: offset, responses, upToDate: false, error: "response is not a JSON array" };
    }
    offset = getHeader(res.headers, "stream-next-offset") ?? offset;
    const upToDate = getHeader(res.headers, "stream-up-to-date") === "true";
    if (upToDate || opts.stopAfterFirst) return { messages, to: offset, responses, upToDate };
    if (opts.untilPosition !== undefined && Number(offset.split("_")[1] ?? offset) >= opts.untilPosition)
      return { messages, to: offset, responses, upToDate };
  }
  return { messages, to: offset, responses, upToDate: false, error: "gave up: too many responses" };
}
