// An INVALID_SNAPSHOT for an offset inside a message names the message boundaries on either side,
// so a client can correct the offset without paging through the index. The decision (protocol/)
// only knows the offset is not a boundary; the boundaries are looked up here, after the refusal,
// with one index seek: nothing is read on the path of a request that succeeds.

import { protocolError, type ProtocolError } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import type { Store } from "../storage/store";

/** The refusal, with the boundaries around `offset` when it is an INVALID_SNAPSHOT for one. */
export async function withNearestBoundaries(store: Store, key: string, offset: number | null, error: ProtocolError): Promise<ProtocolError> {
  if (error.code !== "INVALID_SNAPSHOT" || offset === null) return error;
  const state = await store.get(key);
  if (!state || offset >= state.tail) return error;
  const holding = (await store.introspection.messageIndex(state, { from: offset }, 1)).messages[0];
  if (!holding || holding.offset >= offset) return error;
  const before = holding.offset;
  const after = Math.min(holding.offset + holding.size, state.tail);
  return protocolError(
    "INVALID_SNAPSHOT",
    `offset ${formatOffset(offset)} is inside a message: the nearest message boundaries are ${formatOffset(before)} (byte ${before}) before it and ${formatOffset(after)} (byte ${after}) after it`,
    { boundaries: { before, after } },
  );
}
