import { afterAll, expect, test } from "bun:test";
import { jsonArrayOut, piecesOut, sinkCopies } from "./stream-out";

/** Pieces of every kind a body meets: many small ones, ones of about the group's size, large ones. */
function mixedPieces(): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < 3000; i++) pieces.push(new Uint8Array(100).fill(i & 255));
  pieces.push(new Uint8Array(300 * 1024).fill(1), new Uint8Array(10).fill(2), new Uint8Array(1024 * 1024).fill(3), new Uint8Array(5).fill(4));
  for (let i = 0; i < 200; i++) pieces.push(new Uint8Array(16 * 1024 - 1 + (i % 3)).fill(i & 255));
  for (let i = 0; i < 64; i++) pieces.push(new Uint8Array(64 * 1024).fill(100 + i));
  return pieces;
}

/** JSON messages as stored: compact text and its LF, small and large. */
function storedJson(): Uint8Array[] {
  const enc = new TextEncoder();
  const messages: Uint8Array[] = [];
  for (let i = 0; i < 20_000; i++) messages.push(enc.encode(`{"i":${i},"p":"${"x".repeat(i % 97)}"}\n`));
  messages.push(enc.encode(`{"big":"${"y".repeat(40_000)}"}\n`), enc.encode("7\n"));
  return messages;
}

// Through a real socket, read slowly: the writer's reused buffer must not change bytes that a
// full socket left waiting.
const bodies = new Map<string, () => ReadableStream<Uint8Array> | Uint8Array>([
  ["/bytes", () => piecesOut(mixedPieces())],
  ["/json", () => jsonArrayOut(storedJson())],
]);
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => new Response(bodies.get(new URL(req.url).pathname)!()) });
afterAll(() => server.stop(true));

async function slowRead(path: string): Promise<Buffer> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  const reader = res.body!.getReader();
  const parts: Uint8Array[] = [];
  for (let n = 0; ; n++) {
    const { value, done } = await reader.read();
    if (done) return Buffer.concat(parts);
    parts.push(value);
    if (n % 8 === 0) await Bun.sleep(2);
  }
}

test("piecesOut writes every piece in order through a slow socket, small ones joined, large ones as they are", async () => {
  expect((await slowRead("/bytes")).equals(Buffer.concat(mixedPieces()))).toBe(true);
});

test("jsonArrayOut writes the stored messages as one JSON array through a slow socket", async () => {
  const expected = storedJson().map((m) => JSON.parse(new TextDecoder().decode(m)));
  expect(JSON.parse((await slowRead("/json")).toString("utf8"))).toEqual(expected);
});

test("small bodies are answered whole", async () => {
  expect(new Uint8Array(await new Response(piecesOut([])).arrayBuffer()).length).toBe(0);
  expect(Buffer.from(await new Response(piecesOut([new Uint8Array([1, 2]), new Uint8Array([3])])).arrayBuffer())).toEqual(Buffer.from([1, 2, 3]));
  expect(await new Response(jsonArrayOut([])).text()).toBe("[]");
  expect(await new Response(jsonArrayOut([new TextEncoder().encode("1\n"), new TextEncoder().encode('"a"\n')])).text()).toBe('[1,"a"]');
});

test("bodies written at the same time each keep their own group buffer, and the spares are reused after", async () => {
  const expectedBytes = Buffer.concat(mixedPieces());
  const expectedJson = storedJson().map((m) => JSON.parse(new TextDecoder().decode(m)));
  for (let round = 0; round < 2; round++) {
    const [a, b, c] = await Promise.all([slowRead("/bytes"), slowRead("/json"), slowRead("/bytes")]);
    expect(a.equals(expectedBytes)).toBe(true);
    expect(JSON.parse(b.toString("utf8"))).toEqual(expectedJson);
    expect(c.equals(expectedBytes)).toBe(true);
  }
});

test("a body read in the same process, whose sink keeps the arrays it is given, gets every byte", async () => {
  expect(Buffer.from(await new Response(piecesOut(mixedPieces())).arrayBuffer()).equals(Buffer.concat(mixedPieces()))).toBe(true);
  const expected = storedJson().map((m) => JSON.parse(new TextDecoder().decode(m)));
  expect(JSON.parse(await new Response(jsonArrayOut(storedJson())).text())).toEqual(expected);
});

test("Bun's HTTP response sink is known to copy, a sink read in process is not", async () => {
  const seen: boolean[] = [];
  const body = () => new ReadableStream({ type: "direct", pull(sink: { close(): void }) { seen.push(sinkCopies(sink)); sink.close(); } } as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0]);
  const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(body()) });
  try {
    await (await fetch(`http://127.0.0.1:${http.port}/`)).arrayBuffer();
  } finally {
    http.stop(true);
  }
  await new Response(body()).arrayBuffer();
  expect(seen).toEqual([true, false]);
});
