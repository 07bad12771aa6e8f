// Large response bodies, written to the socket piece by piece through Bun's direct stream
// (writtenOut) as the client takes them: a 128 MiB snapshot is never held whole, and a catch-up or
// bootstrap body is never first copied into one array: every fresh multi-megabyte array costs its
// page faults and a collection later, which cost more than the copy itself
// (docs/design/stepped-reads.md).

import { jsonArrayBytes } from "../live/json-array";
import { concat } from "../live/sse-payload";

const OPEN = Uint8Array.of(0x5b);
const COMMA = 0x2c;
const CLOSE = 0x5d;

/** Bodies up to this size are answered as one array, with no stream. */
const WHOLE_BYTES = 64 * 1024;
/**
 * Pieces smaller than this are copied into a reused buffer of this size, written whenever the
 * next piece would not fit; larger ones are written as they are. Each write is one `sendmsg`, and
 * fewer, larger ones cost less than the extra copy (docs/design/stepped-reads.md).
 */
const GROUP_BYTES = 512 * 1024;
/**
 * Group buffers kept for reuse: a fresh array faults in every page it is written to. A group is held only
 * while it fills, so one or two are in use at a time.
 */
const SPARE_GROUPS = 8;
const spareGroups: Uint8Array[] = [];

/** What Bun's direct stream hands `pull`: a write copies what it cannot send at once. */
interface DirectSink {
  write(bytes: Uint8Array): number | Promise<number>;
  close(): void;
}

/**
 * Whether a direct stream's sink copies what a write leaves unsent, so the array written can be
 * changed once the write has returned: Bun's HTTP response sink does; a body read in the same
 * process (a test's `app.request`) keeps the arrays it is given.
 */
export function sinkCopies(sink: object): boolean {
  return Object.prototype.toString.call(sink).includes("ResponseSink");
}

/** Thrown out of a body's writer when the client has gone: nothing more is written. */
class ClientGone extends Error {}

/**
 * Writes a body's pieces in order: one of GROUP_BYTES or more as it is, smaller ones copied into
 * a group buffer taken from the spares. Bun's HTTP sink copies what the socket does not take at
 * once, so a group goes back to the spares as soon as its write returns: a body waiting for a
 * slow client holds none, and a thousand of them do not hold 512 KiB each. `put` returns true
 * when it only copied, else the pending write, which the caller awaits: a body of 80,000 rows
 * makes no Promise per row.
 */
export class PieceWriter {
  private group: Uint8Array | null = null;
  private used = 0;

  /** Whether the group can be reused once its write has returned (`sinkCopies`). */
  private readonly reusable: boolean;

  constructor(private readonly sink: DirectSink) {
    this.reusable = sinkCopies(sink);
  }

  /**
   * Lets go of the group: back to the spares where the sink has copied what it did not send, so it
   * is free for any body once its write has returned; a sink that keeps its arrays keeps it.
   */
  release(): void {
    if (this.group && this.reusable && spareGroups.length < SPARE_GROUPS) spareGroups.push(this.group);
    this.group = null;
  }

  private buffer(): Uint8Array {
    return (this.group ??= (this.reusable && spareGroups.pop()) || new Uint8Array(GROUP_BYTES));
  }

  put(piece: Uint8Array): true | Promise<void> {
    if (piece.length < GROUP_BYTES && this.used + piece.length <= GROUP_BYTES) {
      this.buffer().set(piece, this.used);
      this.used += piece.length;
      return true;
    }
    return this.putAfterFlush(piece);
  }

  /** A stored JSON message (spec §4.2 array mode) with its closing LF written as `separator`. */
  putMessage(message: Uint8Array, separator: number): true | Promise<void> {
    if (message.length < GROUP_BYTES && this.used + message.length <= GROUP_BYTES) {
      const group = this.buffer();
      group.set(message, this.used);
      this.used += message.length;
      group[this.used - 1] = separator;
      return true;
    }
    return this.putMessageAfterFlush(message, separator);
  }

  private async putMessageAfterFlush(message: Uint8Array, separator: number): Promise<void> {
    await this.putAfterFlush(message.subarray(0, message.length - 1));
    const written = this.put(Uint8Array.of(separator));
    if (written !== true) await written;
  }

  private async putAfterFlush(piece: Uint8Array): Promise<void> {
    await this.flush();
    if (piece.length < GROUP_BYTES) {
      this.buffer().set(piece, 0);
      this.used = piece.length;
    } else await settled(this.sink.write(piece));
  }

  async flush(): Promise<void> {
    if (this.used === 0) return;
    const written = this.sink.write(this.group!.subarray(0, this.used));
    this.used = 0;
    // Let go as soon as the write returns, not once it drains (release says where it is reused).
    this.release();
    await settled(written);
  }
}

/** Waits for a write; one that wrote nothing means the client has gone. */
async function settled(written: number | Promise<number>): Promise<void> {
  if ((written instanceof Promise ? await written : written) === 0) throw new ClientGone();
}

/**
 * A body that `write` puts out through a PieceWriter, as the socket takes it. `release` runs once:
 * when the body has been written whole, the client has gone (`signal`), or `write` failed.
 */
export function writtenOut(write: (out: PieceWriter) => Promise<void>, release: () => void = () => {}, signal?: AbortSignal): ReadableStream<Uint8Array> {
  const done = once(release);
  signal?.addEventListener("abort", done, { once: true });
  return new ReadableStream({
    type: "direct",
    async pull(controller: DirectSink) {
      const out = new PieceWriter(controller);
      try {
        await write(out);
        await out.flush();
        controller.close();
      } catch (error) {
        if (!(error instanceof ClientGone)) throw error;
      } finally {
        out.release();
        done();
      }
    },
    cancel: done,
  }) as unknown as ReadableStream<Uint8Array>;
}

/** A catch-up's byte pieces as they are; one that fits in a single write is answered as it is. */
export function piecesOut(pieces: Uint8Array[]): ReadableStream<Uint8Array> | Uint8Array {
  if (pieces.length <= 1) return pieces[0] ?? new Uint8Array(0);
  if (bytesIn(pieces) <= WHOLE_BYTES) return concat(pieces);
  return writtenOut(async (out) => {
    for (const piece of pieces) {
      const written = out.put(piece);
      if (written !== true) await written;
    }
  });
}


/**
 * Stored JSON messages (each ending in its LF) as one JSON array (spec §4.2): `[`, each message's
 * text followed by a comma, the last by `]`. The text is written from the stored bytes themselves.
 */
export function jsonArrayOut(messages: Uint8Array[]): ReadableStream<Uint8Array> | Uint8Array {
  if (bytesIn(messages) <= WHOLE_BYTES) return jsonArrayBytes(messages);
  return writtenOut(async (out) => {
    out.put(OPEN);
    const last = messages.length - 1;
    for (let i = 0; i <= last; i++) {
      const written = out.putMessage(messages[i]!, i === last ? CLOSE : COMMA);
      if (written !== true) await written;
    }
  });
}

function bytesIn(pieces: Uint8Array[]): number {
  let size = 0;
  for (const p of pieces) size += p.length;
  return size;
}

function once(f: () => void): () => void {
  let ran = false;
  return () => {
    if (ran) return;
    ran = true;
    f();
  };
}
