// The snapshot read thread: reads snapshot chunk rows on its own read-only connection (no memory
// map: mapped pages would count in the process's RSS) and hands each chunk's buffer over to the
// event loop without a copy. The 256 preads of 4 KiB per 1 MiB chunk, and the fresh array Bun
// copies each row into, then cost the event loop nothing: a bootstrap's answer is written while
// its next chunk is read (snapshot-reads.ts), and a HEAD beside it waits for no chunk.

import { Database } from "bun:sqlite";

declare const self: Worker;

export interface SnapshotReadStart {
  path: string;
}

export interface ChunkRequest {
  id: number;
  blobId: number;
  seq: number;
}

export type ChunkAnswer = { id: number; data: Uint8Array } | { id: number; error: string; code?: string };

export interface SnapshotReadClose {
  close: true;
}

let readChunk: ((blobId: number, seq: number) => Uint8Array) | undefined;
let closeDb: (() => void) | undefined;

self.onmessage = (event: MessageEvent<SnapshotReadStart | ChunkRequest | SnapshotReadClose>) => {
  const m = event.data;
  if ("path" in m) {
    const db = new Database(m.path, { readonly: true, strict: true });
    const query = db.prepare<{ data: Uint8Array }, [number, number]>("SELECT data FROM snapshot_chunks WHERE blob_id = ? AND seq = ?");
    readChunk = (blobId, seq) => {
      const row = query.get(blobId, seq);
      if (!row) throw new Error(`snapshot blob ${blobId} has no chunk ${seq}`);
      return row.data;
    };
    // close(true): see checkpointer.ts.
    closeDb = () => db.close(true);
    return;
  }
  if ("close" in m) {
    closeDb?.();
    self.postMessage({ closed: true });
    return;
  }
  try {
    const data = readChunk!(m.blobId, m.seq);
    const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    self.postMessage({ id: m.id, data } satisfies ChunkAnswer, whole ? [data.buffer as ArrayBuffer] : []);
  } catch (error) {
    self.postMessage({ id: m.id, error: (error as Error).message, code: (error as { code?: string }).code } satisfies ChunkAnswer);
  }
};
