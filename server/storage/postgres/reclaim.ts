// Giving back the message rows no reader reaches any more (spec §7.2, §7.4), behind the commit
// that let them go: below a risen floor unless a fork still reads them, and above what the forks
// of a soft-deleted source read. The family is read under a lock on the stream's row, so no fork
// can be made from it while its reach is worked out; the rule is lineage.ts's `reach`.

import type { SQL } from "bun";
import type { StreamState } from "../../protocol/state";
import { reach } from "../lineage";
import { STREAM_COLUMNS, stateOf, type StreamRow } from "./rows";

const NO_COPIES: ReadonlySet<number> = new Set();

/** Reclaims stream `id`'s unreached rows, then its source's, up the lineage. */
export async function reclaimUp(sql: SQL, id: number): Promise<void> {
  for (let next: number | null = id; next !== null; ) next = await reclaimOne(sql, next);
}

async function reclaimOne(sql: SQL, id: number): Promise<number | null> {
  return sql.begin(async (tx) => {
    const locked: StreamRow[] = await tx.unsafe(`SELECT ${STREAM_COLUMNS} FROM streams WHERE id = $1 FOR UPDATE`, [id]);
    if (!locked[0]) return null;
    const family: StreamRow[] = await tx.unsafe(
      `WITH RECURSIVE fam AS (SELECT id FROM streams WHERE fork_source_id = $1
         UNION ALL SELECT s.id FROM streams s JOIN fam ON s.fork_source_id = fam.id)
       SELECT ${STREAM_COLUMNS} FROM streams WHERE id IN (SELECT id FROM fam)`,
      [id],
    );
    const root = stateOf(locked[0]);
    const states = family.map((r) => stateOf(r));
    const children = (s: StreamState) => states.filter((c) => c.fork?.sourceId === s.id);
    const kept = reach(root, children, NO_COPIES);
    if (!kept) await tx`DELETE FROM msgs WHERE stream_id = ${id}`;
    else {
      if (kept.lo > 0) await tx`DELETE FROM msgs WHERE stream_id = ${id} AND start + length(data) <= ${kept.lo}`;
      if (kept.hi !== Infinity) await tx`DELETE FROM msgs WHERE stream_id = ${id} AND start >= ${kept.hi}`;
    }
    return root.fork?.sourceId ?? null;
  });
}
