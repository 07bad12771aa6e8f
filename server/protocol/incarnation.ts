// Stream-Incarnation (spec §5.4) [SEED]: one shared check, so every endpoint that addresses a
// stream honours the header the same way.

import { protocolError, type ProtocolError } from "./errors";

/** Tokens are decimal strings; anything else can never match and is a malformed header. */
export const INCARNATION_TOKEN = /^[0-9]{1,20}$/;

export function incarnationMismatch(current: { incarnation: string; tail: number }, sent: string | null): ProtocolError | null {
  if (sent === null || sent === current.incarnation) return null;
  return protocolError(
    "STREAM_INCARNATION_MISMATCH",
    `the stream at this path is incarnation ${current.incarnation}, not ${sent}: it was deleted and recreated`,
    { incarnation: current.incarnation, nextOffset: current.tail },
  );
}

/** Strictly increasing across the server and never reused, even across restarts (spec §1.8). */
export function nextIncarnation(lastIssued: number, nowMs: number): number {
  return Math.max(nowMs, lastIssued + 1);
}
