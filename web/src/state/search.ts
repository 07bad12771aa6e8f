// Message search: the server scans a bounded stretch per request (storage/message-search.ts) and
// says where it stopped; this model keeps asking from there until it has a page of matches or
// reaches the tail, shows how far it got, and can be stopped or told to find more.
import { batch, signal } from "@preact/signals";
import type { ApiResult, SearchMatch, SearchPage, SearchQuery } from "../api/introspection";

export const MATCHES_PER_RUN = 100;

export interface SearchSpec {
  text: string;
  field: string;
  value: string;
  matchCase: boolean;
}

export const EMPTY_SEARCH: SearchSpec = { text: "", field: "", value: "", matchCase: false };

export const isEmptySearch = (s: SearchSpec) => s.text === "" && s.field === "";

type Fetch = (q: SearchQuery, signal: AbortSignal) => Promise<ApiResult<SearchPage>>;

export class SearchModel {
  readonly spec = signal<SearchSpec | null>(null);
  readonly matches = signal<SearchMatch[]>([]);
  /** Every message before this position has been looked at. */
  readonly scannedTo = signal(0);
  readonly tail = signal(0);
  readonly done = signal(false);
  readonly running = signal(false);
  readonly error = signal<string | null>(null);
  private abort: AbortController | undefined;

  constructor(
    private readonly fetch: Fetch,
    private readonly perRun = MATCHES_PER_RUN,
  ) {}

  /** A new search from the start of the stream (or from `from`, a message start). */
  run(spec: SearchSpec, from = 0): Promise<void> {
    batch(() => {
      this.spec.value = spec;
      this.matches.value = [];
      this.scannedTo.value = from;
      this.done.value = false;
      this.error.value = null;
    });
    return this.more();
  }

  /** The next page of matches, from where the last run stopped. */
  async more(): Promise<void> {
    const spec = this.spec.value;
    if (!spec || this.done.value) return;
    this.abort?.abort();
    const ctrl = new AbortController();
    this.abort = ctrl;
    this.running.value = true;
    const found: SearchMatch[] = [];
    try {
      while (found.length < this.perRun && !ctrl.signal.aborted) {
        const r = await this.fetch(
          { from: this.scannedTo.value, q: spec.text || undefined, field: spec.field || undefined, value: spec.field ? spec.value : undefined, matchCase: spec.matchCase, limit: this.perRun - found.length },
          ctrl.signal,
        );
        if (ctrl.signal.aborted) return;
        if (!r.ok) {
          this.error.value = `${r.status} ${r.code ?? ""} ${r.message}`.replace(/\s+/g, " ").trim();
          return;
        }
        found.push(...r.data.matches);
        batch(() => {
          this.matches.value = this.matches.value.concat(r.data.matches);
          this.scannedTo.value = r.data.scanned_to;
          this.tail.value = r.data.tail_offset;
          this.done.value = r.data.done;
        });
        if (r.data.done) return;
      }
    } finally {
      if (this.abort === ctrl) this.running.value = false;
    }
  }

  stop(): void {
    this.abort?.abort();
    this.running.value = false;
  }

  clear(): void {
    this.stop();
    batch(() => {
      this.spec.value = null;
      this.matches.value = [];
      this.done.value = false;
      this.error.value = null;
    });
  }
}
