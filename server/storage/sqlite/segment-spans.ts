// Reads served from a segment file itself (sendfile) rather than copied out of rows: which span
// of a byte stream's bytes one response carries.

import { isJsonType } from "../../protocol/content-type";
import type { StreamState } from "../../protocol/state";
import { segmentAt, type Segment } from "../lineage";
import type { FileSpan } from "../store";
import type { SegmentFiles } from "./segment-files";

/** The least a response sent from a segment file carries, unless it reaches the read's end (or half the file, if less). */
const MIN_FILE_SPAN_BYTES = 1024 * 1024;
/**
 * The most a response sent from a segment file carries while other requests are in progress:
 * Bun sends a file on the event loop, as much at once as the socket takes, so a large span holds
 * up the requests around it (docs/design/segment-files.md).
 */
const BUSY_FILE_SPAN_BYTES = 2 * 1024 * 1024;

/**
 * A byte stream's bytes from `start` that one segment file holds, as a body the server sends
 * from the file itself, or null where they are in rows. A file's last few bytes before more of
 * the stream are read from rows with what follows, as one response: a response of its own for
 * them would cost a round trip and save no copy worth it.
 */
export function fileSpan(files: SegmentFiles, lineage: Segment[], state: StreamState, start: number, limitBytes: number, busy: boolean): FileSpan | null {
  if (start >= state.tail || isJsonType(state.contentType)) return null;
  const seg = segmentAt(lineage, start);
  const range = seg && files.at(seg.id, start);
  if (!seg || !range?.sendable) return null;
  const whole = Math.min(state.tail, start + (busy ? Math.min(limitBytes, BUSY_FILE_SPAN_BYTES) : limitBytes));
  const end = Math.min(range.hi, seg.hi, whole);
  if (end < whole && end - start < Math.min(MIN_FILE_SPAN_BYTES, (range.hi - range.lo) / 2)) return null;
  range.handedAt = performance.now();
  return { body: Bun.file(files.path(seg.id, range.lo)).slice(start - range.lo, end - range.lo), end };
}
