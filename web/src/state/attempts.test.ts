import { describe, expect, test } from "bun:test";
import type { Exchange, ProtocolRequest } from "../api/types";
import { AttemptLog, matchesFilter } from "./attempts";

let n = 0;
function ex(req: Partial<ProtocolRequest>, status: number, headers: [string, string][] = [], code?: string): Exchange {
  n++;
  return {
    id: `x${n}`,
    origin: "http://h",
    request: { method: "POST", path: "/demo/s", headers: [], body: "[1]", ...req },
    startedAt: 1000 + n,
    durationMs: 3,
    response: { status, statusText: "", headers, bodyText: code ? JSON.stringify({ error: { code, message: "m" } }) : "" },
    errorCode: code,
  };
}

function memoryStorage() {
  const m = new Map<string, string>();
  return { getItem: (k: string) => m.get(k) ?? null, setItem: (k: string, v: string) => void m.set(k, v), removeItem: (k: string) => void m.delete(k), m };
}

describe("AttemptLog", () => {
  test("records newest first with the outcome names of Conditional Writes", () => {
    const log = new AttemptLog();
    log.record(ex({}, 204), "composer");
    log.record(ex({}, 409, [["stream-last-seq", "00000000000000000003"]], "STREAM_SEQ_CONFLICT"), "composer");
    log.record(ex({}, 409, [["producer-expected-seq", "2"]], "PRODUCER_SEQ_CONFLICT"), "composer");
    log.record(ex({}, 409, [["stream-closed", "true"]], "STREAM_CLOSED"), "composer");
    log.record(ex({}, 409, [], "CONTENT_TYPE_MISMATCH"), "composer");
    log.record(ex({}, 412, [["stream-incarnation", "9"]], "STREAM_INCARNATION_MISMATCH"), "incarnation lab");
    log.record(ex({}, 403, [["producer-epoch", "2"]], "PRODUCER_EPOCH_STALE"), "outbox lab");
    log.record(ex({}, 429, [], "PRODUCER_LIMIT"), "composer");
    log.record(ex({ headers: [["Producer-Id", "p"], ["Producer-Epoch", "0"], ["Producer-Seq", "0"]] }, 204), "composer");
    log.record(ex({ headers: [["Producer-Id", "p"], ["Producer-Epoch", "0"], ["Producer-Seq", "1"]] }, 200), "composer");
    expect(log.entries.value.map((a) => a.outcome)).toEqual([
      "accepted",
      "duplicate",
      "429-producer-limit",
      "403-stale-epoch",
      "412",
      "409-content-type",
      "409-closed",
      "409-producer",
      "409-seq",
      "accepted",
    ]);
  });

  test("filters by outcome chips, source and text together", () => {
    const log = new AttemptLog();
    log.record(ex({ path: "/demo/a" }, 204), "composer");
    log.record(ex({ path: "/demo/b" }, 409, [["stream-last-seq", "1"]], "STREAM_SEQ_CONFLICT"), "race lab");
    log.record(ex({ path: "/demo/a" }, 409, [["stream-last-seq", "1"]], "STREAM_SEQ_CONFLICT"), "composer");
    log.record(ex({ path: "/other/c", method: "GET", body: undefined }, 200), "browse");

    log.toggleOutcome("409-seq");
    expect(log.visible.value.map((a) => a.exchange.request.path)).toEqual(["/demo/a", "/demo/b"]);
    log.setFilter({ source: "composer" });
    expect(log.visible.value.map((a) => a.exchange.request.path)).toEqual(["/demo/a"]);
    log.setFilter({ source: "all", text: "/demo/b" });
    expect(log.visible.value.length).toBe(1);
    log.toggleOutcome("409-seq"); // off again: every outcome
    log.setFilter({ text: "get" });
    expect(log.visible.value.map((a) => a.outcome)).toEqual(["read"]);
    log.setFilter({ text: "stream_seq_conflict" });
    expect(log.visible.value.length).toBe(2);
    expect(log.counts.value.get("409-seq")).toBe(2);
  });

  test("caps the history and keeps the newest", () => {
    const log = new AttemptLog({ cap: 3 });
    for (let i = 0; i < 5; i++) log.record(ex({ path: `/demo/${i}` }, 204), "composer");
    expect(log.entries.value.map((a) => a.exchange.request.path)).toEqual(["/demo/4", "/demo/3", "/demo/2"]);
  });

  test("persists across a reload, with long bodies trimmed and no raw bytes", () => {
    const storage = memoryStorage();
    const first = new AttemptLog({ storage });
    const big = ex({ body: "x".repeat(10_000) }, 204);
    big.response!.bodyBytes = new Uint8Array([1, 2, 3]);
    first.record(big, "composer");
    const second = new AttemptLog({ storage });
    expect(second.entries.value.length).toBe(1);
    const kept = second.entries.value[0]!.exchange;
    expect(kept.request.body!.length).toBeLessThan(4200);
    expect(kept.request.body).toContain("more chars");
    expect(kept.response!.bodyBytes).toBeUndefined();
    // The in-memory entry keeps everything.
    expect(first.entries.value[0]!.exchange.request.body!.length).toBe(10_000);
    second.clear();
    expect(new AttemptLog({ storage }).entries.value).toEqual([]);
  });

  test("a network failure is its own outcome", () => {
    const log = new AttemptLog();
    const e = ex({}, 200);
    delete e.response;
    e.networkError = "Failed to fetch";
    expect(log.record(e, "composer").outcome).toBe("network");
    expect(matchesFilter(log.entries.value[0]!, { outcomes: ["network"], source: "all", text: "" })).toBe(true);
  });
});
