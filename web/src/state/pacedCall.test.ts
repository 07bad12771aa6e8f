import { describe, expect, test } from "bun:test";
import { LabStopped, PacedCall } from "./pacedCall";

describe("a package call shown as steps", () => {
  test("holds each request that begins a step until advance(), and reports the end", async () => {
    const order: string[] = [];
    const inner = async (input: string, init?: RequestInit) => {
      order.push(`${init?.method ?? "GET"} ${input}`);
      return new Response(null, { status: 204 });
    };
    const call = new PacedCall<string>(inner, (method) => method === "PUT");
    call.start(async (fetch) => {
      await fetch("/a");
      await fetch("/b", { method: "PUT" });
      await fetch("/c", { method: "PUT" });
      return "done";
    });
    await call.arrival();
    expect(order).toEqual(["GET /a"]);
    await call.advance();
    expect(order).toEqual(["GET /a", "PUT /b"]);
    expect(call.settled).toBe(false);
    await call.advance();
    expect(order).toEqual(["GET /a", "PUT /b", "PUT /c"]);
    expect(call.settled).toBe(true);
    expect(await call.result!).toBe("done");
  });

  test("stop() fails the held request, and the call ends without sending it", async () => {
    const order: string[] = [];
    const call = new PacedCall<void>(async (input) => (order.push(input), new Response(null, { status: 204 })), () => true);
    call.start(async (fetch) => void (await fetch("/a")));
    await call.arrival();
    call.stop();
    await expect(call.result!).rejects.toBeInstanceOf(LabStopped);
    expect(order).toEqual([]);
  });
});
