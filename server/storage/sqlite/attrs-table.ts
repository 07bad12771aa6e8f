// Stream attributes (spec §2.11–§2.12), one row per version, read on demand: 20,000 streams with
// 16 KiB of attributes each would otherwise hold 320 MiB of text in the state of every stream.
//
// A change inserts a new row and points the stream's state at it; the row it replaces is marked
// `replaced` in the same transaction and deleted only once the change is durable (reclaimer.ts),
// because until then readers are served the durable state, which still points at it. A crash in
// between leaves marked rows, which start-up deletes through a partial index: it never reads the
// table (20,000 rows of 16 KiB are 320 MiB).

import type { Database, Statement } from "bun:sqlite";

export class AttrsTable {
  private readonly insertRow: Statement;
  private readonly readRow: Statement<{ attrs: string }>;
  private readonly deleteRow: Statement;
  private readonly markReplaced: Statement;

  constructor(private readonly db: Database) {
    this.insertRow = db.prepare("INSERT INTO stream_attrs (stream_id, attrs) VALUES (?, ?)");
    this.readRow = db.prepare("SELECT attrs FROM stream_attrs WHERE id = ?");
    this.deleteRow = db.prepare("DELETE FROM stream_attrs WHERE id = ?");
    this.markReplaced = db.prepare("UPDATE stream_attrs SET replaced = 1 WHERE id = ?");
  }

  read(id: number | null): string | null {
    return id === null ? null : (this.readRow.get(id)?.attrs ?? null);
  }

  /** Inside a transaction: the new row's id. */
  insert(streamId: number, attrs: string): number {
    return Number(this.insertRow.run(streamId, attrs).lastInsertRowid);
  }

  /** Inside the transaction that stops referring to the row. */
  replaced(id: number): void {
    this.markReplaced.run(id);
  }

  delete(id: number): void {
    this.deleteRow.run(id);
  }

  /** At start-up: rows a crash left behind between a change and the deletion of what it replaced. */
  deleteReplaced(): void {
    this.db.exec("DELETE FROM stream_attrs WHERE replaced = 1");
  }
}
