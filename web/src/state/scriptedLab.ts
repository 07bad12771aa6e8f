// A lab that walks through a fixed script, one step per click or all at once. A step calls
// ursa-client (through `io.fetch`, so every request it makes is recorded as the step's exchanges)
// or, for the few things the package never does on purpose, sends one request it builds itself;
// then it says what the answer means. Used by the outbox, incarnation and compaction labs; the
// race lab interleaves writers instead (raceRunner.ts).
import { batch, signal, type Signal } from "@preact/signals";
import type { Exchange, ProtocolRequest } from "../api/types";
import type { FetchLike } from "../api/ursaClient";
import { transportFetch } from "./clientFetch";
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

/** What a step's `run` sends through: the package's fetch, or the transport; both record into the step. */
export interface StepIO {
  fetch: FetchLike;
  transport: Transport;
  /** The exchanges of this step so far, in order. */
  exchanges: readonly Exchange[];
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
  /** A step that calls the package (or is not one request): its exchanges are what it sent. */
  run?(ctx: C, io: StepIO): Promise<StepResult>;
  /** "This step in code": what a user writes for it with ursa-client (from the lab's code table). */
  code?: string;
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
  code?: string;
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
  /** Where the running step's exchanges go. */
  private sink: Exchange[] = [];
  private readonly send: Transport;
  private readonly fetch: FetchLike;

  /** `cleanup` runs on every reset: a lab deletes the streams of the run it ends. */
  constructor(
    private readonly transport: Transport,
    private readonly makeCtx: () => C,
    private readonly makeSteps: () => ScriptStep<C>[],
    private readonly cleanup?: () => Promise<void>,
  ) {
    this.send = async (req, opts) => {
      const sink = this.sink;
      const ex = await this.transport(req, opts);
      sink.push(ex);
      return ex;
    };
    this.fetch = transportFetch(this.send);
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
      const exchanges: Exchange[] = [];
      this.sink = exchanges;
      if (s.run) {
        try {
          result = await s.run(ctx, { fetch: this.fetch, transport: this.send, exchanges });
        } catch (error) {
          // A refusal the step did not expect: the package threw it, so later steps would prove nothing.
          result = { ok: false, halt: true, note: error instanceof Error ? error.message : String(error) };
        }
      } else {
        const ex = await this.send(s.build!(ctx));
        const status = ex.response?.status;
        result = s.after
          ? s.after(ctx, ex)
          : {
              ok: status === s.expectStatus,
              note: status === s.expectStatus ? (s.okNote ?? `${status}, as the rule says.`) : `Expected ${s.expectStatus}, got ${status ?? ex.networkError}.`,
            };
      }
      if (generation !== this.generation) return;
      const rec: StepRecord = { index: i, actor: s.actor, title, explain: s.explain, expectStatus: s.expectStatus, exchanges, note: result.note, ok: result.ok, lost: result.lost, code: s.code };
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
