// The body of a webhook callback, a pull-wake ack and a release (DS §7): the wake it answers
// (`wake_id`, `generation`), the offsets it acks, and whether the wake is `done`. Offsets are wire
// tokens; `-1` acks nothing and is refused.

import { parseOffsetToken } from "./offsets";
import type { AckInput, WakeRef } from "./subscription-wake";

export interface WakeAnswer extends WakeRef {
  acks: AckInput[];
  done: boolean;
}

export type AnswerParsed = { ok: true; value: WakeAnswer } | { ok: false; message: string };

export function parseWakeAnswer(body: unknown): AnswerParsed {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return { ok: false, message: "the body must be a JSON object" };
  const b = body as Record<string, unknown>;
  if (b.acks !== undefined && !Array.isArray(b.acks)) return { ok: false, message: "acks must be an array" };
  const acks: AckInput[] = [];
  for (const raw of (b.acks as unknown[] | undefined) ?? []) {
    const a = raw as { stream?: unknown; path?: unknown; offset?: unknown } | null;
    const stream = a?.stream ?? a?.path;
    if (typeof stream !== "string" || stream.length === 0 || typeof a?.offset !== "string") return { ok: false, message: "each ack names a stream and an offset" };
    const offset = parseOffsetToken(a.offset, false);
    if (!offset.ok || offset.value.kind !== "position") return { ok: false, message: `${JSON.stringify(a.offset)} is not an offset an ack can name` };
    acks.push({ stream: stream.replace(/^\/+/, "").replace(/\/+$/, ""), offset: offset.value.position });
  }
  return { ok: true, value: { generation: b.generation, wakeId: b.wake_id, acks, done: b.done === true } };
}
