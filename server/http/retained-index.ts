// Retention (spec §7.2) moves the floor in its own commit and deletes the rows below it later, in
// bounded steps (storage/sqlite/reclaimer.ts); until then a store's message index still holds them. The
// console pages through what the index lists and reads those bytes, and every read below the floor
// answers 410, so a page starts at the floor whatever the store still holds.

import type { IndexPage, IndexPosition } from "../storage/introspection";

type PageAt = (at: IndexPosition, limit: number) => Promise<IndexPage>;

/** A page of the index as `pageAt` answers it, with nothing below `floor` in it. */
export async function pageAboveFloor(pageAt: PageAt, at: IndexPosition, limit: number, floor: number): Promise<IndexPage> {
  let page = await pageAt("from" in at ? { from: Math.max(at.from, floor) } : at, limit);
  // Append times never decrease along a stream, so a time whose first message is below the floor
  // is older than every message at or above it: its page is the one at the floor.
  if ("atMs" in at && page.messages.length > 0 && page.messages[0]!.offset < floor) page = await pageAt({ from: floor }, limit);
  const messages = page.messages.filter((m) => m.offset >= floor);
  const edge = messages[0]?.offset ?? ("before" in at ? Math.min(at.before, page.tail) : page.tail);
  return { ...page, messages, hasBefore: page.hasBefore && edge > floor };
}
