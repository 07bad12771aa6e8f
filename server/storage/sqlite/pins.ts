// Readers that stream a snapshot out over many event-loop turns (GET …/snapshot/{offset},
// bootstrap) pin its blob, so that a newer publish, a delete or a fork's cleanup defers the
// deletion of its chunks until the response has ended (reclaimer.ts waits for the last unpin).

export class Pins {
  private readonly counts = new Map<number, number>();
  private readonly released: ((id: number) => void)[] = [];

  pin(id: number): void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }

  unpin(id: number): void {
    const n = (this.counts.get(id) ?? 0) - 1;
    if (n > 0) {
      this.counts.set(id, n);
      return;
    }
    this.counts.delete(id);
    for (const listener of this.released) listener(id);
  }

  has(id: number): boolean {
    return this.counts.has(id);
  }

  onRelease(listener: (id: number) => void): void {
    this.released.push(listener);
  }
}
