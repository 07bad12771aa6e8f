import { describe, expect, test } from "bun:test";
import { formatOffset } from "./offsets";
import { parseWakeAnswer } from "./subscription-acks";

describe("parseWakeAnswer (DS §7)", () => {
  test("acks name a stream (or path) and an offset token; done defaults to false", () => {
    expect(parseWakeAnswer({ wake_id: "w", generation: 2, acks: [{ stream: "events/a", offset: formatOffset(10) }, { path: "/b/", offset: formatOffset(0) }] })).toEqual({
      ok: true,
      value: { wakeId: "w", generation: 2, acks: [{ stream: "events/a", offset: 10 }, { stream: "b", offset: 0 }], done: false },
    });
    expect(parseWakeAnswer({ wake_id: "w", generation: 2, done: true })).toEqual({ ok: true, value: { wakeId: "w", generation: 2, acks: [], done: true } });
  });

  test("a body that is not an object, acks that are not a list, and offsets that name no position are refused", () => {
    for (const body of [null, [], "x", { acks: {} }, { acks: [{ stream: "a" }] }, { acks: [{ stream: "a", offset: "-1" }] }, { acks: [{ stream: "a", offset: "now" }] }, { acks: [{ offset: formatOffset(1) }] }]) {
      expect(parseWakeAnswer(body).ok).toBe(false);
    }
  });
});
