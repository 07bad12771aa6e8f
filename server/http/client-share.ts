// Each client address's share of the requests in progress. --max-connections bounds them all
// together, so without a share one client could hold every place (uploads that declare a body and
// stall, one after another) and every other client would be turned away. Live readers have a share
// of their own (live/hub.ts); this one counts requests while their handler runs.

export class ClientShares {
  private readonly held = new Map<string, number>();

  constructor(readonly perClient: number) {}

  /** Takes a place for `client`, or says no when it holds its share already. */
  enter(client: string): boolean {
    const n = this.held.get(client) ?? 0;
    if (n >= this.perClient) return false;
    this.held.set(client, n + 1);
    return true;
  }

  leave(client: string): void {
    const n = this.held.get(client)! - 1;
    if (n === 0) this.held.delete(client);
    else this.held.set(client, n);
  }

  /** Places `client` holds now. */
  of(client: string): number {
    return this.held.get(client) ?? 0;
  }
}
