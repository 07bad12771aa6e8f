// Property (spec §5.1–§5.3, §5.6 [CW]): any sequence of rounds of guarded appends to a few
// streams, each round submitted at once (one transaction, where the engine groups commits), some
// rounds with a stream whose transactions fail, is answered as an independent model of Conditional Writes'
// rules predicts; the store then holds exactly the accepted writes, and so does a reopen and a crash.

import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { AppendDecision } from "../../protocol/append";
import type { EngineFactory } from "./engine";
import { appendReq, created, messagesOf, stateOf, T0, TIMEOUT_MS } from "./helpers";

const STREAMS = ["model/a", "model/b", "model/c"];

interface Op {
  stream: number;
  seq: number | null;
  producer: { id: string; epoch: number; seq: number } | null;
  /** 0: a plain append; 1: append and close; 2: close only. */
  close: 0 | 1 | 2;
}

interface Round {
  ops: Op[];
  /** A stream whose transactions fail in this round, or null. */
  failing: number | null;
}

const opArb: fc.Arbitrary<Op> = fc.record({
  stream: fc.integer({ min: 0, max: STREAMS.length - 1 }),
  seq: fc.option(fc.integer({ min: 0, max: 12 }), { freq: 2 }),
  producer: fc.option(fc.record({ id: fc.constantFrom("p", "q"), epoch: fc.integer({ min: 0, max: 2 }), seq: fc.integer({ min: 0, max: 4 }) }), { freq: 2 }),
  close: fc.constantFrom<0 | 1 | 2>(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2),
});

const roundArb: fc.Arbitrary<Round> = fc.record({
  ops: fc.array(opArb, { minLength: 1, maxLength: 6 }),
  failing: fc.option(fc.integer({ min: 0, max: STREAMS.length - 1 }), { freq: 3 }),
});

const pad = (n: number) => String(n).padStart(2, "0");

/** One stream as Ursula v0.9.0, Conditional Writes, says it must be: written independently of protocol/. */
class ModelStream {
  messages: string[] = [];
  lastSeq: string | null = null;
  closed = false;
  producers = new Map<string, { epoch: number; seq: number }>();

  /** The outcome's kind or error code, and whether the write would change the stream. */
  decide(op: Op): { outcome: string; writes: boolean } {
    const p = op.producer;
    if (p) {
      const known = this.producers.get(p.id);
      if (!known && p.seq !== 0) return { outcome: "PRODUCER_SEQ_CONFLICT", writes: false };
      if (known && p.epoch < known.epoch) return { outcome: "PRODUCER_EPOCH_STALE", writes: false };
      if (known && p.epoch > known.epoch && p.seq !== 0) return { outcome: "INVALID_PRODUCER", writes: false };
      if (known && p.epoch === known.epoch && p.seq <= known.seq) return { outcome: "duplicate", writes: false };
      if (known && p.epoch === known.epoch && p.seq > known.seq + 1) return { outcome: "PRODUCER_SEQ_CONFLICT", writes: false };
    }
    if (this.closed) return { outcome: op.close === 2 ? "already_closed" : "STREAM_CLOSED", writes: false };
    const seq = op.seq === null ? null : pad(op.seq);
    if (seq !== null && this.lastSeq !== null && !(seq > this.lastSeq)) return { outcome: "STREAM_SEQ_CONFLICT", writes: false };
    return { outcome: "accepted", writes: true };
  }

  apply(op: Op, message: string): void {
    if (op.close !== 2) this.messages.push(message);
    if (op.seq !== null) this.lastSeq = pad(op.seq);
    if (op.producer) this.producers.set(op.producer.id, { epoch: op.producer.epoch, seq: op.producer.seq });
    if (op.close !== 0) this.closed = true;
  }
}

const outcomeOf = (d: AppendDecision) => (d.kind === "error" ? d.code : d.kind);

export function model(factory: EngineFactory): void {
  describe("[CW] the guards against a model", () => {
    test("§5.1–§5.3 rounds of racing guarded appends, some meeting failing transactions, are answered as the model predicts, and a reopen and a crash find exactly the accepted writes", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(roundArb, { minLength: 1, maxLength: 8 }), async (rounds) => {
          const engine = await factory.make({ now: () => T0 });
          try {
            for (const key of STREAMS) await created(engine.store, key);
            const models = STREAMS.map(() => new ModelStream());
            for (const [r, round] of rounds.entries()) {
              const fault = round.failing === null ? null : await engine.failWrites(STREAMS[round.failing]!);
              const store = engine.store;
              const submitted = round.ops.map((op, i) =>
                store
                  .append(STREAMS[op.stream]!, appendReq(op.close === 2 ? [] : [`r${r}o${i}`], { close: op.close !== 0, streamSeq: op.seq === null ? null : pad(op.seq), producer: op.producer }))
                  .then(outcomeOf, () => "failed"),
              );
              const outcomes = await Promise.all(submitted);
              await fault?.heal();
              round.ops.forEach((op, i) => {
                const m = models[op.stream]!;
                const { outcome, writes } = m.decide(op);
                const failing = writes && op.stream === round.failing;
                expect({ round: r, op: i, outcome: outcomes[i] }).toEqual({ round: r, op: i, outcome: failing ? "failed" : outcome });
                if (writes && !failing) m.apply(op, `r${r}o${i}`);
              });
            }
            const check = async () => {
              for (const [i, key] of STREAMS.entries()) {
                const m = models[i]!;
                const state = await stateOf(engine.store, key);
                expect({ key, lastSeq: state.lastSeq, closed: state.closed, messages: await messagesOf(engine.store, key) }).toEqual({ key, lastSeq: m.lastSeq, closed: m.closed, messages: m.messages });
                const producers = (await engine.store.producers(state)).map(([id, p]) => [id, { epoch: p.epoch, seq: p.lastSeq }]);
                expect(new Map(producers as [string, { epoch: number; seq: number }][])).toEqual(m.producers);
              }
            };
            await check();
            if (factory.durable) {
              await engine.reopen();
              await check();
              await engine.crash();
              await check();
            }
          } finally {
            await engine.dispose();
          }
        }),
        { numRuns: factory.durable ? 10 : 40 },
      );
    }, 5 * TIMEOUT_MS);
  });
}
