// Each client address's share of the requests in progress. --max-connections bounds them all
// together, so without a share one client could hold every place (uploads that declare a body and
// stall, one after another) and every other client would be turned away. Live readers have a share
// of their own (live/hub.ts); this one counts requests while their handler runs.
//
// Naming a request's client costs a call into the server for its socket's address, which showed in
// every small append's profile. While no more requests are in progress than one client's share, no
// client can hold more than its share, so requests are only counted then, and named all together
// once more are in progress: from then until the named ones are done, every request is named.

export class ClientShares {
  private readonly held = new Map<string, number>();
  /** Requests let in while too few were in progress to need their client's name. */
  private readonly unnamed = new Set<Request>();
  private readonly named = new Map<Request, string>();

  constructor(
    readonly perClient: number,
    private readonly clientOf: (req: Request) => string,
  ) {}

  /** Takes a place for `req`'s client, or says no when it holds its share already; `inProgress` counts `req` too. */
  enter(req: Request, inProgress: number): boolean {
    if (inProgress <= this.perClient && this.named.size === 0) {
      this.unnamed.add(req);
      return true;
    }
    for (const r of this.unnamed) this.count(r, this.clientOf(r));
    this.unnamed.clear();
    const client = this.clientOf(req);
    if (this.of(client) >= this.perClient) return false;
    this.count(req, client);
    return true;
  }

  leave(req: Request): void {
    if (this.unnamed.delete(req)) return;
    const client = this.named.get(req);
    if (client === undefined) return;
    this.named.delete(req);
    const n = this.held.get(client)! - 1;
    if (n === 0) this.held.delete(client);
    else this.held.set(client, n);
  }

  /** Places `client` holds now among the named requests. */
  of(client: string): number {
    return this.held.get(client) ?? 0;
  }

  private count(req: Request, client: string): void {
    this.named.set(req, client);
    this.held.set(client, this.of(client) + 1);
  }
}
