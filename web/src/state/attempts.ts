// The attempt timeline: every protocol request this browser sent, newest first, with its
// outcome. Kept in localStorage (capped, bodies trimmed) so a reload does not lose the
// history. The filter is plain data so it can be tested without a DOM.
import { computed, signal } from "@preact/signals";
import type { Exchange } from "../api/types";
import { classify, type Outcome } from "../api/outcome";
import { maskHeaderValue, maskQueryToken } from "../api/credentials";

export type AttemptSource = "composer" | "retry" | "browse" | "demo" | "race lab" | "outbox lab" | "incarnation lab" | "compaction lab";

export interface Attempt {
  id: string;
  source: AttemptSource;
  outcome: Outcome;
  exchange: Exchange;
}

export interface AttemptFilter {
  /** Empty means every outcome. */
  outcomes: Outcome[];
  source: AttemptSource | "all";
  /** Matched against method, path, status and error code. */
  text: string;
}

export const EMPTY_FILTER: AttemptFilter = { outcomes: [], source: "all", text: "" };

export function matchesFilter(a: Attempt, f: AttemptFilter): boolean {
  if (f.outcomes.length && !f.outcomes.includes(a.outcome)) return false;
  if (f.source !== "all" && a.source !== f.source) return false;
  const q = f.text.trim().toLowerCase();
  if (!q) return true;
  const ex = a.exchange;
  const hay = `${ex.request.method} ${ex.request.path} ${ex.response?.status ?? ""} ${ex.errorCode ?? ""}`.toLowerCase();
  return hay.includes(q);
}

const BODY_KEEP = 4096;
const FRAMES_KEEP = 64;

/**
 * The exchange as the timeline keeps it: a token typed into an Authorization header or an
 * access_token parameter replaced by $URSA_TOKEN (the console's own token is never in a request).
 */
export function withoutSecrets(ex: Exchange): Exchange {
  const path = maskQueryToken(ex.request.path);
  const masked = ex.request.headers.some(([k, v]) => maskHeaderValue(k, v) !== v);
  if (path === ex.request.path && !masked) return ex;
  return { ...ex, request: { ...ex.request, path, headers: ex.request.headers.map(([k, v]) => [k, maskHeaderValue(k, v)]) } };
}

/** What survives into storage: the whole exchange with long bodies cut and no raw bytes. */
function forStorage(a: Attempt): Attempt {
  const ex = a.exchange;
  const cut = (s: string) => (s.length > BODY_KEEP ? s.slice(0, BODY_KEEP) + `… (${s.length - BODY_KEEP} more chars)` : s);
  return {
    ...a,
    exchange: {
      ...ex,
      request: {
        ...ex.request,
        body: ex.request.body === undefined ? undefined : cut(ex.request.body),
        frames: ex.request.frames?.slice(0, FRAMES_KEEP).map(cut),
      },
      response: ex.response && { ...ex.response, bodyBytes: undefined, bodyText: cut(ex.response.bodyText) },
    },
  };
}

export interface AttemptLogOptions {
  cap?: number;
  storage?: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  key?: string;
}

export class AttemptLog {
  readonly entries = signal<Attempt[]>([]);
  readonly filter = signal<AttemptFilter>(EMPTY_FILTER);
  readonly visible = computed(() => this.entries.value.filter((a) => matchesFilter(a, this.filter.value)));
  readonly counts = computed(() => {
    const c = new Map<Outcome, number>();
    for (const a of this.entries.value) c.set(a.outcome, (c.get(a.outcome) ?? 0) + 1);
    return c;
  });
  private readonly cap: number;
  private readonly storage: AttemptLogOptions["storage"];
  private readonly key: string;

  constructor(opts: AttemptLogOptions = {}) {
    this.cap = opts.cap ?? 500;
    this.storage = opts.storage ?? null;
    this.key = opts.key ?? "ursa.attempts.v1";
    this.entries.value = this.load();
  }

  record(exchange: Exchange, source: AttemptSource): Attempt {
    const attempt: Attempt = { id: exchange.id, source, outcome: classify(exchange), exchange: withoutSecrets(exchange) };
    this.entries.value = [attempt, ...this.entries.value].slice(0, this.cap);
    this.save();
    return attempt;
  }

  setFilter(patch: Partial<AttemptFilter>): void {
    this.filter.value = { ...this.filter.value, ...patch };
  }

  toggleOutcome(o: Outcome): void {
    const cur = this.filter.value.outcomes;
    this.setFilter({ outcomes: cur.includes(o) ? cur.filter((x) => x !== o) : [...cur, o] });
  }

  clear(): void {
    this.entries.value = [];
    this.storage?.removeItem(this.key);
  }

  private load(): Attempt[] {
    try {
      const raw = this.storage?.getItem(this.key);
      return raw ? (JSON.parse(raw) as Attempt[]).slice(0, this.cap) : [];
    } catch {
      return [];
    }
  }

  private save(): void {
    if (!this.storage) return;
    try {
      this.storage.setItem(this.key, JSON.stringify(this.entries.value.map(forStorage)));
    } catch {
      // Quota exceeded: keep the in-memory history; storage is a convenience.
    }
  }
}

function browserStorage(): Storage | null {
  try {
    return typeof localStorage !== "undefined" ? localStorage : null;
  } catch {
    return null;
  }
}

export const attempts = new AttemptLog({ storage: browserStorage() });
