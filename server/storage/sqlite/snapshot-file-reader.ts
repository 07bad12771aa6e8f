// A snapshot blob's file (snapshot-files.ts) read in chunks of CHUNK_BYTES into two buffers that
// are reused: while one chunk is written out, the next is read into the other. A fresh 1 MiB array
// per chunk costs its page faults on every read, which on this VM cost more than the copy itself.
// The reads run on Bun's I/O threads, so the event loop only writes.

import type { FileHandle } from "node:fs/promises";
import type { SnapshotReader } from "../store";
import { CHUNK_BYTES } from "./snapshot-blobs";

interface Read {
  index: number;
  buffer: Uint8Array;
  bytes: Promise<Uint8Array>;
}

export class SnapshotFileReader implements SnapshotReader {
  readonly chunks: number;
  private readonly buffers: [Uint8Array, Uint8Array];
  private ahead: Read | undefined;
  private reading = 0;
  private held = true;

  constructor(
    private readonly file: FileHandle,
    private readonly size: number,
    readonly mentionsBoundary: boolean,
    private readonly unpin: () => void,
  ) {
    this.chunks = Math.ceil(size / CHUNK_BYTES);
    const length = Math.min(size, CHUNK_BYTES);
    this.buffers = [new Uint8Array(length), new Uint8Array(length)];
  }

  /** Chunk `index`; its bytes stay as they are until the next call or `release`. */
  async chunk(index: number): Promise<Uint8Array> {
    let read = this.ahead;
    this.ahead = undefined;
    if (read?.index !== index) {
      // Its buffer is being filled: wait for that before reading into either.
      if (read) await read.bytes.catch(() => {});
      read = this.start(index, this.buffers[0]);
    }
    const bytes = await read.bytes;
    if (index + 1 < this.chunks && this.held) {
      this.ahead = this.start(index + 1, read.buffer === this.buffers[0] ? this.buffers[1] : this.buffers[0]);
      // Not taken if the reader stops first (the client went); its failure then matters to no one.
      this.ahead.bytes.catch(() => {});
    }
    return bytes;
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    this.unpin();
    if (this.reading === 0) this.close();
  }

  private start(index: number, buffer: Uint8Array): Read {
    this.reading++;
    const bytes = this.fill(index, buffer).finally(() => {
      this.reading--;
      if (!this.held && this.reading === 0) this.close();
    });
    return { index, buffer, bytes };
  }

  private async fill(index: number, buffer: Uint8Array): Promise<Uint8Array> {
    const at = index * CHUNK_BYTES;
    const want = Math.min(CHUNK_BYTES, this.size - at);
    let got = 0;
    while (got < want) {
      const { bytesRead } = await this.file.read(buffer, got, want - got, at + got);
      if (bytesRead === 0) throw new Error(`snapshot file ends at ${at + got} bytes, before its ${this.size}`);
      got += bytesRead;
    }
    return buffer.subarray(0, want);
  }

  private close(): void {
    this.file.close().catch(() => {});
  }
}
