import { describe, expect, test } from "bun:test";
import type { Exchange, ProtocolRequest } from "../api/types";
import { transportFetch } from "./clientFetch";
import type { Transport } from "./transport";

function answering(response: Exchange["response"], networkError?: string) {
  const sent: { req: ProtocolRequest; keepBytes?: boolean }[] = [];
  const transport: Transport = async (req, opts) => {
    sent.push({ req, keepBytes: opts?.keepBytes });
    return { id: "1", origin: "", request: req, startedAt: 0, durationMs: 0, response, networkError };
  };
  return { sent, fetch: transportFetch(transport) };
}

describe("the fetch ursa-client is given", () => {
  test("sends the package's request as it was made, and hands back the recorded answer", async () => {
    const { sent, fetch } = answering({ status: 409, statusText: "Conflict", headers: [["stream-last-seq", "00000000000000000003"]], bodyText: '{"error":{"code":"STREAM_SEQ_CONFLICT"}}' });
    const res = await fetch("/lab1/s", { method: "POST", headers: { "Content-Type": "application/json", "Stream-Seq": "00000000000000000002" }, body: "[1]" });
    expect(sent[0]!.req).toEqual({ method: "POST", path: "/lab1/s", headers: [["Content-Type", "application/json"], ["Stream-Seq", "00000000000000000002"]], body: "[1]" });
    expect(res.status).toBe(409);
    expect(res.headers.get("Stream-Last-Seq")).toBe("00000000000000000003");
    expect(await res.json()).toEqual({ error: { code: "STREAM_SEQ_CONFLICT" } });
  });

  test("a 204 has no body; a bootstrap keeps its bytes", async () => {
    const { sent, fetch } = answering({ status: 204, statusText: "No Content", headers: [], bodyText: "" });
    expect((await fetch("/lab1/s", { method: "POST", body: "[1]" })).body).toBeNull();
    await fetch("/lab1/s/bootstrap", {});
    expect(sent.map((s) => s.keepBytes)).toEqual([false, true]);
  });

  test("no answer is a network error, as fetch's", async () => {
    const { fetch } = answering(undefined, "connection refused");
    await expect(fetch("/lab1/s")).rejects.toThrow("connection refused");
  });
});
