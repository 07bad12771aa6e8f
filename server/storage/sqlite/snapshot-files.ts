// Snapshot bytes of a store on disk, one file per blob in a directory beside the database
// (`ursa.sqlite-snapshots/<blob id>`). Why not chunk rows: a 1 MiB chunk row is 256 overflow
// pages, each its own pread, and every row read comes back as a fresh array, so large answers
// spent their time in syscalls and page faults (docs/design/snapshot-files.md). The
// database still says which blobs exist and who refers to them (snapshot-blobs.ts): a file is
// written and synced, with its directory entry, before the transaction that publishes it commits,
// and deleted once nothing refers to it.

import { open, readdir, stat, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import { makeDirDurable, syncDirectory, unlinkIfPresent } from "./wal-sync";

export class SnapshotFiles {
  readonly dir: string;
  private made = false;
  private measured = 0;
  private measuring: Promise<number> | null = null;

  /** The directory beside `dbPath`; made by the first upload, so a start needs no room on the disk. */
  constructor(dbPath: string) {
    this.dir = `${dbPath}-snapshots`;
  }

  path(blobId: number): string {
    return join(this.dir, String(blobId));
  }

  /** A new, empty file for a staging blob (one a lost row left behind is emptied). */
  async create(blobId: number): Promise<FileHandle> {
    if (!this.made) {
      makeDirDurable(this.dir);
      this.made = true;
    }
    return open(this.path(blobId), "w");
  }

  /** Makes the file's bytes and its name durable: called before the publish commits. */
  async seal(file: FileHandle): Promise<void> {
    await file.sync();
    await file.close();
    syncDirectory(this.dir);
  }

  /** Gone already is fine: a collection a crash interrupted deletes the file before the row. */
  remove(blobId: number): void {
    unlinkIfPresent(this.path(blobId));
  }

  /** The bytes of the files in the directory as last measured (the store's sweep measures them). */
  bytes(): number {
    return this.measured;
  }

  /**
   * Measures the directory (or joins the measurement under way): a listing, then a stat per file,
   * one at a time and off the event loop, so a directory of many files never holds a request.
   */
  measure(): Promise<number> {
    this.measuring ??= this.total()
      .then((total) => (this.measured = total))
      .catch(() => this.measured)
      .finally(() => (this.measuring = null));
    return this.measuring;
  }

  private async total(): Promise<number> {
    let total = 0;
    for (const name of await this.names()) total += (await stat(join(this.dir, name)).catch(() => null))?.size ?? 0;
    return total;
  }

  /** The blob ids that have a file, for the sweep after start-up. */
  async blobIds(): Promise<number[]> {
    return (await this.names()).map(Number);
  }

  /** The names of blob files in the directory; none before the first upload made it. */
  private async names(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (error) {
      if ((error as { code?: string }).code === "ENOENT") return [];
      throw error;
    }
    return names.filter((name) => /^[1-9][0-9]*$/.test(name));
  }
}
