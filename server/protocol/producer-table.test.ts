import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { ProducerState } from "./producer";
import { ProducerTable } from "./producer-table";

const entry = (lastSeq: number): ProducerState => ({ epoch: 0, lastSeq, lastStart: 0, lastNext: lastSeq + 1, updatedAtMs: lastSeq });

describe("ProducerTable", () => {
  test("a change makes a new table and leaves the one it was made from as it was", () => {
    const before = ProducerTable.from([["a", entry(1)], ["b", entry(2)]]);
    const after = before.with("a", entry(3)).with("c", entry(4)).without("b");
    expect([...before]).toEqual([["a", entry(1)], ["b", entry(2)]]);
    expect([...after]).toEqual([["a", entry(3)], ["c", entry(4)]]);
    expect([before.size, after.size]).toEqual([2, 2]);
    expect(after.has("b") || after.get("b") !== undefined).toBe(false);
  });

  test("a change that folds the layer keeps the changed entry where a Map keeps it", () => {
    // fast-check's shrunk counterexample: the ninth change folds, and it changes an entry the
    // layer already holds, which a fold once moved to the end.
    const ids = ["p6", "p5", "p7", "p0", "p2", "p1", "p3", "p4"];
    let table = ProducerTable.EMPTY;
    for (const id of ids) table = table.with(id, entry(0));
    table = table.with("p0", entry(1));
    expect([...table.keys()]).toEqual(ids);
    expect(table.get("p0")).toEqual(entry(1));
  });

  // Thousands of producers on a stream, changed one at a time, fold their layer into a new base
  // many times over; every table on the way must still read as a Map changed in the same order
  // would, in the same order.
  test.each([24, 300])("every table of a long history reads as the Map it stands for (ids 0..%d)", (ids) => {
    const op = fc.record({ remove: fc.boolean(), id: fc.integer({ min: 0, max: ids }), seq: fc.nat(1000) });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: ids }), fc.nat(1000)), { maxLength: 300 }), fc.array(op, { maxLength: 600 }), (initial, ops) => {
        let model = new Map(initial.map(([id, seq]) => [`p${id}`, entry(seq)]));
        let table = ProducerTable.from(model);
        const history: [ProducerTable, Map<string, ProducerState>][] = [[table, model]];
        for (const o of ops) {
          model = new Map(model);
          const id = `p${o.id}`;
          if (o.remove) {
            model.delete(id);
            table = table.without(id);
          } else {
            model.set(id, entry(o.seq));
            table = table.with(id, entry(o.seq));
          }
          history.push([table, model]);
        }
        for (const [t, m] of history) {
          expect([...t]).toEqual([...m]);
          expect(t.size).toBe(m.size);
          for (let i = 0; i <= ids; i += 7) expect(t.get(`p${i}`)).toEqual(m.get(`p${i}`));
        }
      }),
      { numRuns: 200 },
    );
  });
});
