// The server-wide budget for request bodies held in memory at once (spec §8.1, 256 MiB by
// default). Each write request takes from it as its body's bytes arrive (not when it declares a
// length) and gives it back when its response is ready, so a burst of large uploads, or a disk
// that stalls while writes queue behind it, is turned away with 503 and Retry-After instead of
// running the process out of memory.

export class BodyBudget {
  private held = 0;

  constructor(readonly limit: number) {}

  /** Bytes taken and not yet given back, across every request. */
  get inUse(): number {
    return this.held;
  }

  /** Whether `bytes` more would fit now; nothing is taken. */
  fits(bytes: number): boolean {
    return this.held + bytes <= this.limit;
  }

  /** Takes `bytes`, or nothing if that would pass the limit. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held -= bytes;
  }

  /** One request's share, to be released however the request ends. */
  hold(): BodyHold {
    return new BodyHold(this);
  }
}

export class BodyHold {
  private bytes = 0;

  constructor(private readonly budget: BodyBudget) {}

  fits(bytes: number): boolean {
    return this.budget.fits(bytes);
  }

  take(bytes: number): boolean {
    if (!this.budget.take(bytes)) return false;
    this.bytes += bytes;
    return true;
  }

  release(): void {
    this.budget.give(this.bytes);
    this.bytes = 0;
  }
}
