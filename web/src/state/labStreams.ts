// Labs leave nothing behind. A lab's streams live in the labs bucket; every stream a lab creates
// is created with a Stream-TTL of a day at most, and the lab remembers it with its incarnation
// token so that New run, reset and leaving the lab can delete it. The delete carries the token:
// a lab never deletes a stream that someone recreated at the same URL since.
import { signal } from "@preact/signals";
import type { Exchange, ProtocolRequest } from "../api/types";
import { getHeader } from "../api/headers";
import { parsePath } from "../api/paths";
import { defaultOrigin, toFetchInit } from "../api/exchange";
import type { Transport } from "./transport";

/** Labs create their streams here, so they never collide with user data. */
export const LAB_BUCKET = "labs";

/** A day: long enough to come back to a run, short enough that an abandoned one goes away. */
export const LAB_TTL_SECONDS = 24 * 60 * 60;

const LIFETIME = /^stream-(ttl|expires-at)$/i;

/** A PUT that creates a stream (not a sub-resource) gets a Stream-TTL unless it has a lifetime already. */
export function withLabTtl(req: ProtocolRequest): ProtocolRequest {
  const t = parsePath(req.path);
  if (req.method !== "PUT" || !t?.streamPath || t.sub || req.headers.some(([k]) => LIFETIME.test(k))) return req;
  return { ...req, headers: [...req.headers, ["Stream-TTL", String(LAB_TTL_SECONDS)]] };
}

function deleteRequest(path: string, token: string): ProtocolRequest {
  return { method: "DELETE", path, headers: token ? [["Stream-Incarnation", token]] : [] };
}

export class LabStreams {
  /** Stream path (as sent) → the incarnation token of the stream this lab created there. */
  readonly owned = signal<ReadonlyMap<string, string>>(new Map());

  constructor(private readonly send: Transport) {}

  /** What the lab sends through: creates carry the TTL, and every create and delete is noted. */
  readonly transport: Transport = async (req, opts) => {
    const ex = await this.send(withLabTtl(req), opts);
    this.note(ex);
    return ex;
  };

  owns(streamPath: string): boolean {
    return this.owned.value.has(streamPath);
  }

  /** Delete every stream of this lab, and forget them. Best effort: a refusal leaves it to the TTL. */
  async discard(): Promise<void> {
    const owned = [...this.owned.value];
    if (owned.length === 0) return;
    this.owned.value = new Map();
    await Promise.all(owned.map(([path, token]) => this.send(deleteRequest(path, token))));
  }

  /**
   * The same deletes from a page that is going away: a keepalive fetch outlives the page, and
   * nobody waits for its answer.
   */
  discardOnUnload(fetchImpl: typeof fetch = fetch, origin: string = defaultOrigin()): void {
    for (const [path, token] of this.owned.value) {
      const { bearer: _bearer, ...init } = toFetchInit(deleteRequest(path, token));
      fetchImpl(origin + path, { ...init, keepalive: true }).catch(() => {});
    }
    this.owned.value = new Map();
  }

  private note(ex: Exchange): void {
    const t = parsePath(ex.request.path);
    if (!t?.streamPath || t.sub) return;
    const status = ex.response?.status;
    const next = new Map(this.owned.value);
    if (ex.request.method === "PUT" && status === 201) next.set(t.streamPath, getHeader(ex.response?.headers, "stream-incarnation") ?? "");
    else if (ex.request.method === "DELETE" && status === 204) next.delete(t.streamPath);
    else return;
    this.owned.value = next;
  }
}
