// Runs the race lab against the server: sets up a fresh stream, and runs one ursa-client
// PrefixCountWriter per writer, each committing in a loop. The writers' requests are held at each
// step (pacedCall.ts), so Step lets one writer do one thing (read to the tail, or append) and the
// lanes interleave as the person chooses; continuously, every writer runs at once. Each exchange
// is folded into its lane (raceLab.ts); at the end the whole log is read for the verdict.
import { batch, signal } from "@preact/signals";
import type { Exchange } from "../api/types";
import { padSeq } from "../api/streamSeq";
import { parseSeq, PrefixCountWriter, UrsaStream, type FetchLike, type LogView } from "../api/ursaClient";
import {
  commitEvents,
  commitSeq,
  DEFAULT_RACE_CONFIG,
  eventsFor,
  failWriter,
  foldCommit,
  foldRead,
  initialRace,
  isFinished,
  nextAction,
  scheduleNext,
  type RaceConfig,
  type RacePitfalls,
  type RaceState,
} from "./raceLab";
import { checkLog, type Verdict } from "./raceVerdict";
import { transportFetch } from "./clientFetch";
import { PacedCall } from "./pacedCall";
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

/**
 * The two pitfalls a PrefixCountWriter never makes, bent into its requests on their way out:
 * the count after the writer's own commit (its events added to the Stream-Seq it computed), and
 * one max_bytes response taken for the whole story (marked up to date for the writer; the lane
 * shows the real answer). With both off, the package's requests go out as it made them.
 */
export function withPitfalls(inner: FetchLike, pitfalls: RacePitfalls, shortReadBytes: number): FetchLike {
  return async (input, init = {}) => {
    const method = init.method ?? "GET";
    if (pitfalls.afterCommit && method === "POST") {
      const headers = { ...(init.headers as Record<string, string>) };
      const events = (JSON.parse(String(init.body)) as unknown[]).length;
      headers["Stream-Seq"] = padSeq(parseSeq(headers["Stream-Seq"]!) + events);
      return inner(input, { ...init, headers });
    }
    if (pitfalls.shortRead && method === "GET") {
      const res = await inner(`${input}&max_bytes=${shortReadBytes}`, init);
      if (!res.ok) return res;
      const headers = new Headers(res.headers);
      headers.set("Stream-Up-To-Date", "true");
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }
    return inner(input, init);
  };
}

/** A step begins with each append, and with the first GET of each read. */
const beginsStep = (method: string, previous: string | null) => method !== "GET" || previous !== "GET";

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
  /** Each writer's commit loop, held at its next step. */
  private writers: PacedCall<void>[] = [];
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
    for (const w of this.writers) w.stop();
    this.writers = [];
    void this.opts.cleanup?.();
    batch(() => {
      this.state.value = null;
      this.setup.value = null;
      this.verdict.value = null;
      this.error.value = null;
    });
  }

  /**
   * Creates a fresh application/json stream (UrsaStream.create: a PUT without Stream-Seq) and
   * starts the writers. The seeding pitfall is the one PUT the package never sends: the lab sends
   * it itself, with a Stream-Seq.
   */
  async prepare(): Promise<boolean> {
    const cfg = this.config.value;
    const name = this.opts.newStreamName?.() ?? `race-${Date.now().toString(36)}`;
    const path = `/${this.opts.bucket}/${encodeURIComponent(name)}`;
    const generation = this.generation;
    let ex: Exchange | undefined;
    const recording: Transport = async (req, o) => (ex = await this.transport(req, o));
    if (cfg.pitfalls.seedingPut) await recording({ method: "PUT", path, headers: [["Content-Type", "application/json"], ["Stream-Seq", padSeq(cfg.seedValue)]] });
    else await new UrsaStream(path, { fetch: transportFetch(recording) }).create({ contentType: "application/json" }).catch(() => {});
    if (generation !== this.generation || !ex) return false;
    const created = ex.response?.status === 201;
    batch(() => {
      this.setup.value = ex!;
      this.verdict.value = null;
      if (created) {
        this.state.value = initialRace(cfg, path);
        this.error.value = null;
      } else this.error.value = `could not create ${path}: ${ex!.response?.status ?? ex!.networkError}`;
    });
    if (created) this.startWriters(path, cfg);
    return created;
  }

  /** One PrefixCountWriter per lane, committing `commitsPerWriter` times, held before its first read. */
  private startWriters(path: string, cfg: RaceConfig): void {
    const generation = this.generation;
    this.writers = this.state.value!.writers.map((_lane, w) => {
      let previous: string | null = null;
      const lane: Transport = async (req, o) => {
        const ex = await this.transport(req, o);
        if (generation === this.generation && this.state.value) {
          this.state.value = req.method === "GET" ? foldRead(this.state.value, w, ex, previous === "GET") : foldCommit(this.state.value, w, ex);
        }
        previous = req.method;
        return ex;
      };
      const call = new PacedCall<void>(withPitfalls(transportFetch(lane), cfg.pitfalls, cfg.shortReadBytes), beginsStep);
      call.start(async (fetch) => {
        const writer = new PrefixCountWriter(path, { fetch, maxAttempts: cfg.maxRetries + 1 });
        for (let c = 0; c < cfg.commitsPerWriter; c++) await writer.commit((log) => this.decide(w, log));
      });
      // Why a writer stopped is in its lane (a refusal, a stuck writer, a new run).
      call.result!.catch(() => {});
      return call;
    });
  }

  /** The writer's commit: its events, each naming the count it was decided on and the Stream-Seq it goes with. */
  private decide(w: number, log: LogView): unknown[] {
    const st = this.state.value!;
    const lane = st.writers[w]!;
    const events = eventsFor(st.config, w);
    return commitEvents(lane.name, lane.commit, commitSeq(log.n, events, st.config.pitfalls), events, log.n);
  }

  /** Lets writer `w` do its next step; a writer its lane calls stuck is stopped there. */
  private async advance(w: number): Promise<void> {
    const call = this.writers[w];
    if (!call) return;
    await call.advance();
    const phase = this.state.value?.writers[w]?.phase;
    if (phase === "stuck") call.stop();
    else if (call.settled && this.state.value && nextAction(this.state.value, w)) this.state.value = failWriter(this.state.value, w);
  }

  /** One action: by the given writer, or by the next in round-robin order. */
  async step(writer?: number): Promise<void> {
    if (this.busy.value) return;
    this.busy.value = true;
    try {
      if (!this.state.value && !(await this.prepare())) return;
      const st = this.state.value!;
      const w = writer ?? scheduleNext(st);
      if (w === null || !nextAction(st, w)) return;
      const generation = this.generation;
      await this.advance(w);
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
          if (!nextAction(this.state.value!, i)) return;
          await this.pause(Math.floor(this.random() * jitterMs));
          if (this.stopRequested || generation !== this.generation) return;
          await this.advance(i);
        }
      });
      await Promise.all(loops);
      if (!this.stopRequested && generation === this.generation) await this.judge();
    } finally {
      this.busy.value = false;
      this.mode.value = "idle";
    }
  }

  stop(): void {
    this.stopRequested = true;
  }

  /** Read the whole log and check every commit's Stream-Seq against the events before it. */
  async judge(): Promise<void> {
    const st = this.state.value;
    if (!st) return;
    const generation = this.generation;
    let messages: unknown[];
    try {
      ({ messages } = await new UrsaStream(st.path, { fetch: transportFetch(this.transport) }).readToTail());
    } catch (error) {
      if (generation === this.generation) this.error.value = `verdict read failed: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    if (generation !== this.generation) return;
    const stuck = st.writers.filter((w) => w.phase === "stuck" || w.phase === "failed").map((w) => w.name);
    this.verdict.value = checkLog(messages, stuck);
  }
}
