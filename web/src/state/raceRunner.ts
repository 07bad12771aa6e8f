// Runs the race lab against the server: sets up a fresh stream, performs the actions the
// state machine (raceLab.ts) asks for, one step at a time or all writers at once, and
// finally reads the whole log for the verdict.
import { batch, signal } from "@preact/signals";
import type { Exchange, ProtocolRequest } from "../api/types";
import { padSeq } from "../api/streamSeq";
import {
  applyCommit,
  applyRead,
  DEFAULT_RACE_CONFIG,
  initialRace,
  isFinished,
  nextAction,
  scheduleNext,
  type RaceAction,
  type RaceConfig,
  type RaceState,
} from "./raceLab";
import { checkLog, type Verdict } from "./raceVerdict";
import { readToTail } from "./logReader";
import type { Transport } from "./transport";

export interface RaceRunnerOptions {
  bucket: string;
  /** Fresh stream name per run. */
  newStreamName?: () => string;
  /** Pause between steps when running on its own, so a human can follow the lanes. */
  pause?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Runs on every reset: the lab deletes the stream of the run it ends. */
  cleanup?: () => Promise<void>;
}

export class RaceRunner {
  readonly config = signal<RaceConfig>(DEFAULT_RACE_CONFIG);
  readonly state = signal<RaceState | null>(null);
  readonly setup = signal<Exchange | null>(null);
  readonly verdict = signal<Verdict | null>(null);
  readonly busy = signal(false);
  readonly mode = signal<"idle" | "stepping" | "continuous">("idle");
  readonly error = signal<string | null>(null);
  private stopRequested = false;
  /** Bumped by reset: an answer that arrives for an earlier run is dropped. */
  private generation = 0;
  private readonly pause: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly transport: Transport,
    private readonly opts: RaceRunnerOptions,
  ) {
    this.pause = opts.pause ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.random = opts.random ?? Math.random;
  }

  updateConfig(patch: Partial<RaceConfig>): void {
    this.config.value = { ...this.config.value, ...patch };
    this.reset();
  }

  reset(): void {
    this.generation++;
    void this.opts.cleanup?.();
    batch(() => {
      this.state.value = null;
      this.setup.value = null;
      this.verdict.value = null;
      this.error.value = null;
    });
  }

  /** PUT a fresh application/json stream; with the seeding pitfall the PUT stores a Stream-Seq. */
  async prepare(): Promise<boolean> {
    const cfg = this.config.value;
    const name = this.opts.newStreamName?.() ?? `race-${Date.now().toString(36)}`;
    const path = `/${this.opts.bucket}/${encodeURIComponent(name)}`;
    const headers: [string, string][] = [["Content-Type", "application/json"]];
    if (cfg.pitfalls.seedingPut) headers.push(["Stream-Seq", padSeq(cfg.seedValue)]);
    const generation = this.generation;
    const ex = await this.transport({ method: "PUT", path, headers });
    if (generation !== this.generation) return false;
    batch(() => {
      this.setup.value = ex;
      this.verdict.value = null;
      if (ex.response?.status === 201) {
        this.state.value = initialRace(cfg, path);
        this.error.value = null;
      } else this.error.value = `could not create ${path}: ${ex.response?.status ?? ex.networkError}`;
    });
    return ex.response?.status === 201;
  }

  /** One action: by the given writer, or by the next in round-robin order. */
  async step(writer?: number): Promise<void> {
    if (this.busy.value) return;
    this.busy.value = true;
    try {
      if (!this.state.value && !(await this.prepare())) return;
      const st = this.state.value!;
      const w = writer ?? scheduleNext(st);
      if (w === null) return;
      const action = nextAction(st, w);
      if (!action) return;
      const generation = this.generation;
      await this.perform(action);
      if (generation !== this.generation) return;
      if (writer === undefined) this.state.value = { ...this.state.value!, turn: w + 1 };
      if (isFinished(this.state.value!)) await this.judge();
    } finally {
      this.busy.value = false;
    }
  }

  /** Step by step to the end, in round-robin order, pausing so the lanes can be followed. */
  async runSteps(pauseMs = 250): Promise<void> {
    this.mode.value = "stepping";
    this.stopRequested = false;
    try {
      if (!this.state.value || isFinished(this.state.value)) {
        this.reset();
        if (!(await this.prepare())) return;
      }
      while (!this.stopRequested && this.state.value && !isFinished(this.state.value)) {
        await this.step();
        await this.pause(pauseMs);
      }
    } finally {
      this.mode.value = "idle";
    }
  }

  /** Every writer runs its loop at once against the server: a real race. */
  async runContinuous(jitterMs = 20): Promise<void> {
    this.mode.value = "continuous";
    this.stopRequested = false;
    this.busy.value = true;
    try {
      this.reset();
      if (!(await this.prepare())) return;
      const generation = this.generation;
      const loops = this.state.value!.writers.map(async (_w, i) => {
        for (;;) {
          if (this.stopRequested || generation !== this.generation) return;
          const action = nextAction(this.state.value!, i);
          if (!action) return;
          await this.pause(Math.floor(this.random() * jitterMs));
          if (this.stopRequested || generation !== this.generation) return;
          await this.perform(action);
        }
      });
      await Promise.all(loops);
      if (!this.stopRequested) await this.judge();
    } finally {
      this.busy.value = false;
      this.mode.value = "idle";
    }
  }

  stop(): void {
    this.stopRequested = true;
  }

  /** One action against the server, folded into the state unless a reset started another run meanwhile. */
  private async perform(action: RaceAction): Promise<void> {
    const path = this.state.value!.path;
    const generation = this.generation;
    if (action.kind === "read") {
      const startedAt = Date.now();
      const r = await readToTail(this.transport, path, action.from, { maxBytes: action.maxBytes, stopAfterFirst: action.stopAfterFirst });
      if (generation !== this.generation) return;
      this.state.value = applyRead(this.state.value!, action.writer, action, {
        startedAt,
        endedAt: Date.now(),
        events: r.messages.length,
        to: r.to,
        responses: r.responses,
        upToDate: r.upToDate,
        error: r.error,
      });
    } else {
      const req: ProtocolRequest = {
        method: "POST",
        path,
        headers: [
          ["Content-Type", "application/json"],
          ["Stream-Seq", action.seq],
        ],
        body: action.body,
      };
      const ex = await this.transport(req);
      if (generation !== this.generation) return;
      this.state.value = applyCommit(this.state.value!, action.writer, action, ex);
    }
  }

  /** Read the whole log and check every commit's Stream-Seq against the events before it. */
  async judge(): Promise<void> {
    const st = this.state.value;
    if (!st) return;
    const generation = this.generation;
    const r = await readToTail(this.transport, st.path, "-1");
    if (generation !== this.generation) return;
    if (r.error) {
      this.error.value = `verdict read failed: ${r.error}`;
      return;
    }
    const stuck = st.writers.filter((w) => w.phase === "stuck" || w.phase === "failed").map((w) => w.name);
    this.verdict.value = checkLog(
      r.messages.map((m) => JSON.parse(m) as unknown),
      stuck,
    );
  }
}
