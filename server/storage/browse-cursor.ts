// The keyset cursor of the console's stream list: where the next page starts. Every engine walks
// the same sorts, so every engine writes and reads the same cursor.

import type { StreamSortKey } from "../introspection-api";

export type SortValue = string | number | null;

/** The position of one stream in a sort: its name and the sorted column's value. */
export interface CursorRow {
  name: string;
  v: SortValue;
}

/** Sorts whose column may be NULL (a stream never written to has no last write nor last Stream-Seq). */
export const NULLABLE_SORT: Record<Exclude<StreamSortKey, "name">, boolean> = {
  created: false,
  tail: false,
  last_write: true,
  last_seq: true,
};

/** A keyset cursor: the name alone for the name sort, `[value, name]` as JSON for the others. */
export function encodeCursor(sort: StreamSortKey, row: CursorRow): string {
  return sort === "name" ? row.name : JSON.stringify([row.v, row.name]);
}

/** The cursor's row, or null when it is not one this sort could have produced. */
export function decodeCursor(sort: StreamSortKey, cursor: string): CursorRow | null {
  if (sort === "name") return { name: cursor, v: cursor };
  let parsed: unknown;
  try {
    parsed = JSON.parse(cursor);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[1] !== "string") return null;
  const [v, name] = parsed as [unknown, string];
  const numeric = sort !== "last_seq";
  if (v === null ? !NULLABLE_SORT[sort] : numeric ? typeof v !== "number" || !Number.isSafeInteger(v) : typeof v !== "string") return null;
  return { name, v: v as SortValue };
}
