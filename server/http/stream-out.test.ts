import { expect, test } from "bun:test";
import { piecesOut } from "./stream-out";

test("piecesOut writes every piece in order, small ones joined, large ones as they are", async () => {
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < 3000; i++) pieces.push(new Uint8Array(100).fill(i & 255));
  pieces.push(new Uint8Array(300 * 1024).fill(1), new Uint8Array(10).fill(2), new Uint8Array(1024 * 1024).fill(3), new Uint8Array(5).fill(4));
  const body = new Uint8Array(await new Response(piecesOut(pieces)).arrayBuffer());
  expect(Buffer.from(body).equals(Buffer.concat(pieces))).toBe(true);
  expect(new Uint8Array(await new Response(piecesOut([])).arrayBuffer()).length).toBe(0);
});
