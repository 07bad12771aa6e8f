// One ursa-client call shown as several lab steps. A package call such as compact() or a
// writer's commit loop sends several requests; the lab holds each request that begins a new step
// until the lab takes that step, so the package's code runs unchanged while the lab shows its
// parts one at a time (and the race lab interleaves several writers' calls step by step).
import type { FetchLike } from "../api/ursaClient";

/** Thrown into a held request when the lab ends the call (a stuck writer, a new run). */
export class LabStopped extends Error {
  constructor() {
    super("the lab stopped this call");
    this.name = "LabStopped";
  }
}

/** Does a request with this method begin a new step, given the method of the one before it (null: the first)? */
export type Begins = (method: string, previous: string | null) => boolean;

export class PacedCall<T> {
  /** The fetch to give the package: it holds every request that begins a step until advance(). */
  readonly fetch: FetchLike;
  /** The call's outcome, once started. */
  result: Promise<T> | null = null;
  settled = false;
  private held: { go: () => void; stop: (e: unknown) => void } | null = null;
  private arrived: (() => void) | null = null;
  private previous: string | null = null;

  constructor(inner: FetchLike, begins: Begins) {
    this.fetch = async (input, init) => {
      const method = init?.method ?? "GET";
      if (begins(method, this.previous)) {
        await new Promise<void>((go, stop) => {
          this.held = { go, stop };
          this.reached();
        });
      }
      this.previous = method;
      return inner(input, init);
    };
  }

  /** Starts the call; it runs until it holds its first step's request, or ends. */
  start(call: (fetch: FetchLike) => Promise<T>): void {
    this.result = call(this.fetch);
    const end = () => {
      this.settled = true;
      this.reached();
    };
    this.result.then(end, end);
  }

  /** Resolves once the call holds a request, or has ended. */
  arrival(): Promise<void> {
    if (this.settled || this.held) return Promise.resolve();
    return new Promise<void>((r) => (this.arrived = r));
  }

  /** Lets the held request go and resolves when the call holds the next one, or ends. */
  async advance(): Promise<void> {
    await this.arrival();
    const held = this.held;
    if (!held) return;
    this.held = null;
    held.go();
    await this.arrival();
  }

  /** Ends the call at its held request: the package sees it fail with LabStopped. */
  stop(): void {
    const held = this.held;
    this.held = null;
    held?.stop(new LabStopped());
  }

  private reached(): void {
    const arrived = this.arrived;
    this.arrived = null;
    arrived?.();
  }
}
