import { describe, expect, test } from "bun:test";
import { evaluateProducer, parseProducer } from "./producer";
import { producer } from "./testing-state";

const code = (id: string | null, epoch: string | null, seq: string | null) => {
  const r = parseProducer(id, epoch, seq);
  return r.ok ? r.value : r.error.code;
};

describe("producer headers (spec §5.3)", () => {
  test("all three or none", () => {
    expect(code(null, null, null)).toBeNull();
    expect(code("p", "1", null)).toBe("INVALID_PRODUCER");
    expect(code(null, "1", "1")).toBe("INVALID_PRODUCER");
  });
  test("strict non-negative decimal integers up to 2^53-1", () => {
    for (const bad of ["1abc", "0xyz", "1e3", "-1", "+1", "", "9007199254740992"]) expect(code("p", "0", bad)).toBe("INVALID_PRODUCER");
    expect(code(" p ", "9007199254740991", "0")).toEqual({ id: "p", epoch: 9007199254740991, seq: 0 });
  });
  test("blank id is rejected", () => expect(code("  ", "0", "0")).toBe("INVALID_PRODUCER"));
});

describe("producer decision table (spec §5.3)", () => {
  const t = (epoch: number, seq: number) => ({ id: "p", epoch, seq });
  test("unknown producer: seq 0 accepted, anything else is a gap expecting 0", () => {
    expect(evaluateProducer(undefined, t(3, 0))).toEqual({ kind: "accept" });
    expect(evaluateProducer(undefined, t(3, 2))).toEqual({ kind: "sequence_gap", expected: 0 });
  });
  test("a lower epoch is stale and reports the current one", () => {
    expect(evaluateProducer(producer(2, 5), t(1, 6))).toEqual({ kind: "stale_epoch", currentEpoch: 2 });
  });
  test("a higher epoch must start at seq 0", () => {
    expect(evaluateProducer(producer(2, 5), t(3, 0))).toEqual({ kind: "accept" });
    expect(evaluateProducer(producer(2, 5), t(3, 1))).toEqual({ kind: "new_epoch_nonzero_seq" });
  });
  test("same epoch: seq <= last is a duplicate, last+1 is accepted, beyond is a gap", () => {
    expect(evaluateProducer(producer(2, 5), t(2, 5)).kind).toBe("duplicate");
    expect(evaluateProducer(producer(2, 5), t(2, 0)).kind).toBe("duplicate");
    expect(evaluateProducer(producer(2, 5), t(2, 6))).toEqual({ kind: "accept" });
    expect(evaluateProducer(producer(2, 5), t(2, 8))).toEqual({ kind: "sequence_gap", expected: 6 });
  });
});
