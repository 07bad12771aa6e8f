// A bucket's stream list: the view (sort, order, filters, cursor) is plain data read from and
// written to the URL, so any list can be linked; the model loads one page of it. The server
// stops a filtered page at its scan budget (a "partial" page); the model asks on from where it
// stopped, up to a few times per page, so a selective filter over 10,000 streams still fills the
// page without any one request doing unbounded work.
import { batch, signal } from "@preact/signals";
import type { ApiResult, SortOrder, StreamFilters, StreamListQuery, StreamListRow, StreamPage, StreamSortKey } from "../api/introspection";
import { STREAM_SORT_KEYS } from "../api/introspection";

export interface ListView extends StreamFilters {
  sort: StreamSortKey;
  order: SortOrder;
  after: string;
}

/** Big first for sizes and times, A to Z for names. */
export const DEFAULT_ORDER: Record<StreamSortKey, SortOrder> = { name: "asc", created: "desc", tail: "desc", last_write: "desc", last_seq: "desc" };

export const DEFAULT_VIEW: ListView = { sort: "name", order: "asc", prefix: "", contains: "", status: "any", producers: "any", seq: "any", after: "" };

function pick<T extends string>(raw: string | null, allowed: readonly T[], fallback: T): T {
  return raw !== null && (allowed as readonly string[]).includes(raw) ? (raw as T) : fallback;
}

export function viewFromQuery(q: URLSearchParams): ListView {
  const sort = pick(q.get("sort"), STREAM_SORT_KEYS, "name");
  return {
    sort,
    order: pick(q.get("order"), ["asc", "desc"] as const, DEFAULT_ORDER[sort]),
    prefix: q.get("prefix") ?? "",
    contains: q.get("contains") ?? "",
    status: pick(q.get("status"), ["any", "open", "closed"] as const, "any"),
    producers: pick(q.get("producers"), ["any", "with", "without"] as const, "any"),
    seq: pick(q.get("seq"), ["any", "set", "unset"] as const, "any"),
    after: q.get("after") ?? "",
  };
}

/** The URL query for a view: defaults left out, so the plain list has a plain URL. */
export function viewToQuery(v: ListView): Record<string, string | undefined> {
  const d = (value: string, fallback: string) => (value === fallback ? undefined : value);
  return {
    sort: d(v.sort, "name"),
    order: d(v.order, DEFAULT_ORDER[v.sort]),
    prefix: d(v.prefix, ""),
    contains: d(v.contains, ""),
    status: d(v.status, "any"),
    producers: d(v.producers, "any"),
    seq: d(v.seq, "any"),
    after: d(v.after, ""),
  };
}

/** Clicking a column: the same column flips its order, another starts at its natural order. Either way back to the first page. */
export function toggleSort(v: ListView, key: StreamSortKey): ListView {
  const order = v.sort === key ? (v.order === "asc" ? "desc" : "asc") : DEFAULT_ORDER[key];
  return { ...v, sort: key, order, after: "" };
}

/** Any filter change starts over from the first page. */
export function withFilter(v: ListView, patch: Partial<StreamFilters>): ListView {
  return { ...v, ...patch, after: "" };
}

export function isFiltered(v: ListView): boolean {
  return v.contains !== "" || v.status !== "any" || v.producers !== "any" || v.seq !== "any";
}

type Fetch = (q: StreamListQuery, signal: AbortSignal) => Promise<ApiResult<StreamPage>>;

export class StreamListModel {
  readonly rows = signal<StreamListRow[]>([]);
  readonly total = signal<number | null>(null);
  /** `total` is a lower bound: the server counts a prefix's streams only so far. */
  readonly totalCapped = signal(false);
  readonly nextCursor = signal<string | null>(null);
  readonly hasMore = signal(false);
  /** Streams the server looked at for this page, over all its requests. */
  readonly scanned = signal(0);
  /** The page is not full because the scan stopped at the request limit, not because the list ended. */
  readonly stopped = signal(false);
  readonly loading = signal(false);
  readonly error = signal<string | null>(null);
  private abort: AbortController | undefined;
  private view: ListView | undefined;

  constructor(
    private readonly fetchPage: Fetch,
    readonly limit = 100,
    private readonly maxRequests = 4,
  ) {}

  async load(view: ListView): Promise<void> {
    this.view = view;
    this.abort?.abort();
    const ctrl = new AbortController();
    this.abort = ctrl;
    this.loading.value = true;
    const rows: StreamListRow[] = [];
    let after = view.after || undefined;
    let scanned = 0;
    let last: StreamPage | undefined;
    for (let i = 0; i < this.maxRequests; i++) {
      const { after: _cursor, ...filters } = view;
      const r = await this.fetchPage({ ...filters, after, limit: this.limit - rows.length }, ctrl.signal);
      if (ctrl.signal.aborted) return;
      if (!r.ok) {
        batch(() => {
          this.loading.value = false;
          this.error.value = `${r.status} ${r.code ?? ""} ${r.message}`.trim();
        });
        return;
      }
      last = r.data;
      rows.push(...last.streams);
      scanned += last.scanned;
      if (!last.partial || rows.length >= this.limit) break;
      after = last.next_cursor ?? undefined;
    }
    batch(() => {
      this.loading.value = false;
      this.error.value = null;
      this.rows.value = rows;
      this.total.value = last!.total;
      this.totalCapped.value = last!.total_capped;
      this.nextCursor.value = last!.next_cursor;
      this.hasMore.value = last!.has_more;
      this.scanned.value = scanned;
      this.stopped.value = last!.partial && rows.length < this.limit;
    });
  }

  reload(): Promise<void> {
    return this.view ? this.load(this.view) : Promise.resolve();
  }

  dispose(): void {
    this.abort?.abort();
  }
}
