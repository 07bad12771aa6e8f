// The pace a request body must keep. Bun's idle timer is not reset by body bytes, so it cut
// uploads that were still arriving, yet a connection that sent a byte now and then before each
// cut could be back at once. Here a body is paced instead: over every window of `windowMs` it must
// bring `minBytesPerSecond` on average, or it is cut. A body read whole (a small one, with
// arrayBuffer()) cannot be watched byte by byte, so it must be complete by the end of its first
// window plus its declared length at that rate. Bun's idle timer is lifted for a body still
// arriving at the pacer's next tick, and set again once it is read: most bodies arrive with their
// headers and are read before that tick, so they cost neither call. One timer looks at every body
// in progress, so a small append pays for a set entry, not a timer of its own.

/** The answer a paced read gets when its body fell behind. */
export const TOO_SLOW = Symbol("too slow");
export type TooSlow = typeof TOO_SLOW;

export interface PaceLimits {
  /** The least average rate a body must keep over each window. */
  minBytesPerSecond: number;
  windowMs: number;
}

/** What the pacer does to a request's connection: main.ts wires Bun's per-request timeout. */
export interface ConnectionTimer {
  /** No idle timeout while the body is read. */
  lift(req: Request): void;
  /** The idle timeout again, for the connection's life after this request. */
  restore(req: Request): void;
}

const TICK_MS = 250;

/** One body in progress. A reader that sees it chunk by chunk counts what arrives. */
export class PacedBody {
  received = 0;
  /** Set once the body fell behind; a reader that sees it stops and keeps nothing. */
  cut = false;
  /** Called when the body is cut: a chunk reader cancels its read here, then returns what it has (which is discarded). */
  private onCut: (() => void) | null = null;
  /** Ends the read with TOO_SLOW (the race of a whole-body read). */
  settle: ((slow: TooSlow) => void) | null = null;
  /** Whether bytes are counted as they arrive; if not, the body is judged by its declared length. */
  private counting = false;
  private windowStart: number;
  private windowBytes = 0;

  /** Whether Bun's idle timer was lifted for this body's connection (at a tick that found it still arriving). */
  lifted = false;

  constructor(
    readonly req: Request,
    readonly startedAt: number,
    private readonly declared: number,
  ) {
    this.windowStart = startedAt;
  }

  /**
   * A chunk reader says so before its first read: from then on it counts what arrives (`count`),
   * and `cancel` stops its read when the body is cut.
   */
  inChunks(cancel: () => void): void {
    this.counting = true;
    this.onCut = cancel;
  }

  count(bytes: number): void {
    this.received += bytes;
    this.windowBytes += bytes;
  }

  /** Marks the body cut; true if its reader stops by itself (it reads in chunks). */
  cutOff(): boolean {
    this.cut = true;
    this.onCut?.();
    return this.onCut !== null;
  }

  /** Whether the body has fallen behind by `now`; a window that it kept up with is closed and the next begun. */
  behind(now: number, limits: PaceLimits): boolean {
    if (!this.counting) return now > this.startedAt + limits.windowMs + (this.declared * 1000) / limits.minBytesPerSecond;
    if (now - this.windowStart < limits.windowMs) return false;
    if (this.windowBytes < (limits.minBytesPerSecond * limits.windowMs) / 1000) return true;
    this.windowStart = now;
    this.windowBytes = 0;
    return false;
  }
}

export class BodyPacer {
  private readonly active = new Set<PacedBody>();
  private timer: ReturnType<typeof setInterval> | undefined;
  /** Bodies that arrived whole, so the request's answer needs no drain (app.ts). */
  private readonly whole = new WeakSet<Request>();

  constructor(
    readonly limits: PaceLimits,
    private readonly connection: ConnectionTimer,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * Runs `read` over `req`'s body at the pace the limits ask. `declared` is its Content-Length,
   * if any. Resolves with what `read` returned, or TOO_SLOW if the body fell behind first: then
   * nothing of it may be kept. A read that sees chunks says so (`body.inChunks`), counts them and
   * stops when told; a whole-body read is raced instead.
   */
  read<T>(req: Request, declared: number | null, read: (body: PacedBody) => Promise<T>): Promise<T | TooSlow> {
    const body = new PacedBody(req, this.now(), declared ?? 0);
    this.active.add(body);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.check(), TICK_MS);
      this.timer.unref?.();
    }
    // Whichever comes first: the read's result, or the tick that cuts the body (settle). Written
    // with callbacks, not an async frame: every small append comes through here.
    return new Promise<T | TooSlow>((resolve, reject) => {
      body.settle = (slow) => resolve(this.done(body, slow));
      read(body).then(
        (result) => resolve(this.done(body, body.cut ? TOO_SLOW : result)),
        (error: unknown) => {
          this.done(body, TOO_SLOW);
          reject(error);
        },
      );
    });
  }

  /** The read is over (the first of its result and its cut): its place is let go of once. */
  private done<R>(body: PacedBody, result: R): R {
    if (!this.active.delete(body)) return result;
    if (body.lifted) this.connection.restore(body.req);
    if (result !== TOO_SLOW) this.whole.add(body.req);
    return result;
  }

  /** Whether `req`'s body was read whole through `read`. */
  arrivedWhole(req: Request): boolean {
    return this.whole.has(req);
  }

  /** Bodies being read now. */
  get inProgress(): number {
    return this.active.size;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    if (this.active.size === 0) return this.stop();
    const now = this.now();
    for (const body of this.active) {
      if (body.cut) continue;
      if (!body.behind(now, this.limits)) {
        if (!body.lifted) {
          body.lifted = true;
          this.connection.lift(body.req);
        }
        continue;
      }
      // A chunk reader stops itself and returns; a whole-body read cannot be stopped, so it is
      // left to fail once the connection closes, and the answer goes out without it.
      if (!body.cutOff()) body.settle?.(TOO_SLOW);
    }
  }
}
