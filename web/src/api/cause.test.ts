import { describe, expect, test } from "bun:test";
import { causeOf } from "./cause";
import type { Exchange, HeaderList } from "./types";

let id = 0;
function ex(method: "POST" | "PUT" | "GET", path: string, reqHeaders: HeaderList, status: number, resHeaders: HeaderList, code?: string, at = ++id): Exchange {
  return {
    id: String(at),
    origin: "http://h",
    request: { method, path, headers: reqHeaders, body: method === "POST" ? "[1]" : undefined },
    startedAt: at,
    durationMs: 1,
    response: { status, statusText: "", headers: resHeaders, bodyText: "" },
    errorCode: code,
  };
}
const pad = (n: number) => String(n).padStart(20, "0");
const seq409 = (sent: string, stored: string) =>
  ex("POST", "/b/s", [["Content-Type", "application/json"], ["Stream-Seq", sent]], 409, [["stream-last-seq", stored], ["stream-next-offset", "0000000000000000_0000000000000012"]], "STREAM_SEQ_CONFLICT");

describe("a Stream-Seq 409 names both causes and shows stored next to sent", () => {
  test("without history neither cause is marked likely", () => {
    const c = causeOf(seq409(pad(2), pad(3)));
    expect(c.compare).toEqual({ label: "Stream-Seq", sent: pad(2), stored: pad(3), storedLabel: "Stream-Last-Seq (stored)" });
    expect(c.causes!.map((x) => [x.title, x.likely])).toEqual([
      ["Another writer committed first", undefined],
      ["Your own value is stale", undefined],
    ]);
    expect(c.causes![0]!.text).toContain("Stream-Next-Offset 0000000000000000_0000000000000012");
    expect(c.rules).toContain("seq-409");
  });
  test("this browser's own accepted append stored the value: own staleness is likely", () => {
    const mine = ex("POST", "/b/s", [["Stream-Seq", pad(3)]], 204, []);
    const c = causeOf(seq409(pad(3), pad(3)), [mine]);
    expect(c.headline).toContain("the value the stream already holds");
    expect(c.causes!.find((x) => x.likely)!.title).toBe("Your own value is stale");
  });
  test("someone else's value is stored after ours: another writer is likely", () => {
    const mine = ex("POST", "/b/s", [["Stream-Seq", pad(1)]], 204, []);
    const c = causeOf(seq409(pad(2), pad(2)), [mine]);
    expect(c.causes!.find((x) => x.likely)!.title).toBe("Another writer committed first");
  });
  test("values of different widths get the padding advice", () => {
    expect(causeOf(seq409("10", "9")).next).toContain("bytewise");
    expect(causeOf(seq409(pad(1), pad(2))).next).toBeUndefined();
  });
});

describe("a 412 does not claim a recreation it cannot know about", () => {
  const r412 = () => ex("POST", "/b/s", [["Stream-Incarnation", "111"]], 412, [["stream-incarnation", "222"]], "STREAM_INCARNATION_MISMATCH");
  test("a token this browser saw for the stream: recreated is likely", () => {
    const created = ex("PUT", "/b/s", [], 201, [["stream-incarnation", "111"]]);
    const c = causeOf(r412(), [created]);
    expect(c.compare).toEqual({ label: "Stream-Incarnation", sent: "111", stored: "222", storedLabel: "current (Stream-Incarnation)" });
    expect(c.causes!.find((x) => x.likely)!.title).toBe("The stream was deleted and recreated");
  });
  test("a token never seen: both causes, none claimed", () => {
    const c = causeOf(r412());
    expect(c.causes!.map((x) => x.title)).toEqual(["The stream was deleted and recreated", "The token was never this stream's"]);
    expect(c.causes!.some((x) => x.likely)).toBe(false);
  });
  test("a PUT with a token for a missing stream", () => {
    const c = causeOf(ex("PUT", "/b/new", [["Stream-Incarnation", "111"]], 412, [], "STREAM_INCARNATION_MISMATCH"));
    expect(c.headline).toContain("does not exist");
    expect(c.compare).toBeUndefined();
  });
});

test("other outcomes name their cause", () => {
  expect(causeOf(ex("POST", "/b/s", [["Producer-Seq", "5"]], 409, [["producer-expected-seq", "3"]], "PRODUCER_SEQ_CONFLICT")).headline).toContain("expects 3");
  expect(causeOf(ex("POST", "/b/s", [], 409, [["stream-closed", "true"]], "STREAM_CLOSED")).headline).toContain("closed");
  expect(causeOf(ex("POST", "/b/s", [["Producer-Epoch", "0"]], 403, [["producer-epoch", "1"]], "PRODUCER_EPOCH_STALE")).headline).toContain("Producer-Epoch 1");
  expect(causeOf(ex("GET", "/b/s", [["Stream-Incarnation", "1"]], 404, [], "STREAM_NOT_FOUND")).rules).toEqual(["inc-404"]);
  expect(causeOf(ex("PUT", "/b/s", [["Stream-Seq", "5"]], 201, [["stream-incarnation", "9"]])).rules).toContain("prefix-seeded");
});
