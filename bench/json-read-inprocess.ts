// How fast the store alone reads a stream of 100-byte JSON messages (issue 21: a catch-up of such
// a stream over HTTP should reach 300 MB/s). Measured in process, without a socket, so it shows
// the most any HTTP read of them could reach, and what bounds it. Before schema version 9 that was
// one log row per message (330 MB/s for readRange, 430-580 for stepping the rows alone); now the
// messages of an append share rows of up to 64 KiB (server/storage/sqlite/json-rows.ts), split in JavaScript.
//
//   bun bench/json-read-inprocess.ts [--mib 128] [--reads 3] [--dir DIR]
//
// It appends --mib MiB of 100-byte messages (99 bytes of compact JSON and the stored LF, 5,000 to
// an append, as the catchup/128MiB-json100B case posts them) to one stream of a fresh store on
// disk, then reads the stream whole --reads times, three ways, interleaved:
//   - readRange: the store's read, in READ_STEP_BYTES steps of whole messages, as a catch-up does;
//   - steps + array: the same, and each step's messages written into one JSON array buffer, as the
//     HTTP body is (stream-out.ts), without the socket;
//   - rows only: SQLite stepping the same rows, no JavaScript objects made (count(*) over the same
//     join): what SQLite alone costs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Database } from "bun:sqlite";
import { isProtocolError } from "../server/protocol/errors";
import { createRequest } from "../server/protocol/testing-state";
import { SqliteStore } from "../server/storage/sqlite/sqlite-store";
import { READ_STEP_BYTES } from "../server/storage/store";

const { values } = parseArgs({ options: { mib: { type: "string", default: "128" }, reads: { type: "string", default: "3" }, dir: { type: "string" } } });
const dir = values.dir ?? mkdtempSync(join(tmpdir(), "ursa-json-read-"));
const path = join(dir, "ursa.sqlite");
const PER_APPEND = 5000;
const messages = Math.ceil((Number(values.mib) * 2 ** 20) / 100);
const text = (i: number) => `{"i":"${String(i).padStart(10, "0")}","p":"${"x".repeat(74)}"}\n`;

const store = new SqliteStore({ path, sync: "normal" });
const key = "bench/json";
await store.create(key, createRequest({ bucket: "bench", name: "json", contentType: "application/json" }));
const encoder = new TextEncoder();
const t0 = performance.now();
for (let i = 0; i < messages; i += PER_APPEND) {
  const batch = Array.from({ length: Math.min(PER_APPEND, messages - i) }, (_, j) => encoder.encode(text(i + j)));
  const decision = await store.append(key, { contentType: "application/json", messages: batch, close: false, streamSeq: null, producer: null, incarnation: null });
  if (isProtocolError(decision) || decision.kind !== "accepted") throw new Error(`append: ${JSON.stringify(decision)}`);
}
const state = (await store.get(key))!;
console.log(`filled ${messages.toLocaleString()} messages, ${(state.tail / 1e6).toFixed(1)} MB, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
// Every deferred row indexed, as on a server that has been idle for 100 ms.
await store.close();

const reopened = new SqliteStore({ path, sync: "normal" });
const st = (await reopened.get(key))!;
const array = new Uint8Array(READ_STEP_BYTES + 1024);

async function readAll(intoArray: boolean): Promise<number> {
  let pos = 0;
  let bytes = 0;
  while (pos < st.tail) {
    const slice = await reopened.readRange(st, pos, READ_STEP_BYTES, true);
    let at = 0;
    for (const m of slice.chunks) {
      if (intoArray) {
        array.set(m, at);
        array[at + m.length - 1] = 0x2c;
      }
      at += m.length;
    }
    bytes += at;
    pos = slice.end;
  }
  return bytes;
}

const raw = new Database(path, { readonly: true });
const rowsOnly = raw.prepare<{ n: number }, [number, number, number]>(
  "SELECT count(*) AS n, sum(length(m.data)) AS b FROM msg_index i JOIN msgs m ON m.id = i.msg_id WHERE i.stream_id = ? AND i.start >= ? AND i.start < ?",
);
function stepRows(): number {
  let n = 0;
  for (let pos = 0; pos < st.tail; pos += READ_STEP_BYTES) n += rowsOnly.get(st.id, pos, pos + READ_STEP_BYTES)!.n;
  if (n >= messages / 100) throw new Error(`stepped ${n} rows for ${messages} messages: are they packed?`);
  return st.tail;
}

const mbps = (bytes: number, ms: number) => `${((bytes / 1e6) / (ms / 1000)).toFixed(0)} MB/s`;
for (let r = 0; r < Number(values.reads); r++) {
  const cells: string[] = [];
  for (const [name, run] of [["readRange", () => readAll(false)], ["steps + array", () => readAll(true)], ["rows only", async () => stepRows()]] as const) {
    const t = performance.now();
    const bytes = await run();
    if (bytes !== st.tail) throw new Error(`${name} read ${bytes} bytes, expected ${st.tail}`);
    cells.push(`${name} ${mbps(bytes, performance.now() - t)}`);
  }
  console.log(`read ${r + 1}: ${cells.join(", ")}`);
}
raw.close();
await reopened.close();
if (!values.dir) rmSync(dir, { recursive: true, force: true });
