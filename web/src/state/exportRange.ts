// Export a range of a stream as a file: NDJSON for a JSON stream (read with format=ndjson, one
// message per line: the bytes the server stores) or the raw bytes of any other stream. Read in
// pieces through the protocol, each continuing from the last one's Stream-Next-Offset.
import type { ContentKind } from "../api/contentKind";
import type { ReadResult } from "./messageWindow";

/** Per read; the server answers at most 8 MiB anyway (spec §2.7). */
export const EXPORT_READ_BYTES = 4 * 1024 * 1024;

export interface ExportPlan {
  from: number;
  to: number;
  kind: ContentKind;
}

export function exportFileName(stream: string, plan: ExportPlan): string {
  const safe = stream.replace(/[^A-Za-z0-9._-]+/g, "_");
  return `${safe}_${plan.from}-${plan.to}.${plan.kind === "json" ? "ndjson" : plan.kind === "text" ? "txt" : "bin"}`;
}

export function exportMime(kind: ContentKind): string {
  return kind === "json" ? "application/x-ndjson" : kind === "text" ? "text/plain" : "application/octet-stream";
}

/** The bytes of [from, to), read piece by piece; `onProgress` gets the position reached. */
export async function readRange(
  read: (offset: number, maxBytes: number, signal: AbortSignal) => Promise<ReadResult>,
  plan: ExportPlan,
  signal: AbortSignal,
  onProgress: (position: number) => void = () => {},
): Promise<{ ok: true; parts: Uint8Array[]; end: number } | { ok: false; message: string }> {
  const parts: Uint8Array[] = [];
  let pos = plan.from;
  while (pos < plan.to) {
    const r = await read(pos, Math.min(EXPORT_READ_BYTES, plan.to - pos), signal);
    if (!r.ok) return r;
    if (r.next <= pos) return { ok: false, message: `the read at ${pos} returned nothing` };
    parts.push(r.bytes);
    pos = r.next;
    onProgress(pos);
  }
  return { ok: true, parts, end: pos };
}
