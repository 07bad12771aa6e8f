// A lab that walks through a fixed script of protocol requests, one step per click or all at
// once. Each step builds its request from the lab's context (tokens, epochs, counters kept
// from earlier answers), sends it, and says what the answer means. Used by the outbox and
// incarnation labs; the race lab needs a real state machine instead (raceLab.ts).
import { batch, signal, type Signal } from "@preact/signals";
import type { Exchange, ProtocolRequest } from "../api/types";
import type { Transport } from "./transport";

export interface StepResult {
  note: string;
  /** Did the server answer the way the rule says it must? */
  ok: boolean;
  /** Stop the script here (an unexpected answer makes later steps meaningless). */
  halt?: boolean;
  /** The lab dropped the answer: the actor never saw it (the exchange is kept to show what it missed). */
  lost?: boolean;
}

export interface ScriptStep<C> {
  actor: string;
  /** What the step will do, known before it runs, so the whole plot is readable up front. */
  title: string;
  /** Which rule the step demonstrates, in one or two sentences. */
  explain: string;
  expectStatus?: number;
  /** What the expected status means here (default interpretation only). */
  okNote?: string;
  build?(ctx: C): ProtocolRequest;
  /** Interprets the answer and updates the context. Default: ok when the status is expected. */
  after?(ctx: C, ex: Exchange): StepResult;
  /** A step that is not one request (e.g. reading the whole log). */
  run?(ctx: C, transport: Transport): Promise<StepResult & { exchanges?: Exchange[] }>;
}

/** How a lab is made: a fresh stream name per run, and what to do when a run ends (delete its streams). */
export interface LabOptions {
  name?: () => string;
  cleanup?: () => Promise<void>;
}

export interface StepRecord {
  index: number;
  actor: string;
  title: string;
  explain: string;
  expectStatus?: number;
  exchanges: Exchange[];
  note: string;
  ok: boolean;
  lost?: boolean;
}

export class ScriptedLab<C> {
  readonly records = signal<StepRecord[]>([]);
  readonly cursor = signal(0);
  readonly busy = signal(false);
  readonly halted = signal(false);
  /** A snapshot of the context after each step, for views (the live `ctx` is mutated by steps). */
  readonly view: Signal<C>;
  ctx: C;
  steps: ScriptStep<C>[];
  /** Bumped by reset: an answer that arrives for an earlier run is dropped. */
  private generation = 0;

  /** `cleanup` runs on every reset: a lab deletes the streams of the run it ends. */
  constructor(
    private readonly transport: Transport,
    private readonly makeCtx: () => C,
    private readonly makeSteps: () => ScriptStep<C>[],
    private readonly cleanup?: () => Promise<void>,
  ) {
    this.ctx = makeCtx();
    this.steps = makeSteps();
    this.view = signal(structuredClone(this.ctx));
  }

  get finished(): boolean {
    return this.halted.value || this.cursor.value >= this.steps.length;
  }

  reset(): void {
    this.generation++;
    void this.cleanup?.();
    this.ctx = this.makeCtx();
    this.steps = this.makeSteps();
    batch(() => {
      this.records.value = [];
      this.cursor.value = 0;
      this.halted.value = false;
      this.view.value = structuredClone(this.ctx);
    });
  }

  async step(): Promise<void> {
    if (this.busy.value || this.finished) return;
    this.busy.value = true;
    const generation = this.generation;
    // The run this step belongs to: a reset while it waits for its answer must not touch the next run.
    const ctx = this.ctx;
    try {
      const i = this.cursor.value;
      const s = this.steps[i]!;
      const title = s.title;
      let result: StepResult;
      let exchanges: Exchange[] = [];
      if (s.run) {
        const r = await s.run(ctx, this.transport);
        result = r;
        exchanges = r.exchanges ?? [];
      } else {
        const ex = await this.transport(s.build!(ctx));
        exchanges = [ex];
        const status = ex.response?.status;
        result = s.after
          ? s.after(ctx, ex)
          : {
              ok: status === s.expectStatus,
              note: status === s.expectStatus ? (s.okNote ?? `${status}, as the rule says.`) : `Expected ${s.expectStatus}, got ${status ?? ex.networkError}.`,
            };
      }
      if (generation !== this.generation) return;
      const rec: StepRecord = { index: i, actor: s.actor, title, explain: s.explain, expectStatus: s.expectStatus, exchanges, note: result.note, ok: result.ok, lost: result.lost };
      batch(() => {
        this.records.value = [...this.records.value, rec];
        this.cursor.value = i + 1;
        this.view.value = structuredClone(ctx);
        if (result.halt) this.halted.value = true;
      });
    } finally {
      this.busy.value = false;
    }
  }

  async runAll(pause: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)), pauseMs = 200): Promise<void> {
    if (this.finished) this.reset();
    const generation = this.generation;
    while (!this.finished && generation === this.generation) {
      await this.step();
      if (!this.finished) await pause(pauseMs);
    }
  }
}
