// A stream's live readers for its page: asked again every few seconds while the page is open
// (and visible), at most READERS_SHOWN of them, the most behind first, as the server orders
// them; the server says how many there are in all. Each reader's lag is put in words here, so
// the component only lays it out.
import { fetchReaders, type ReaderPage, type ReaderRow } from "../api/readers";
import type { ApiResult } from "../api/introspection";
import { count, duration } from "../format";
import { whileVisible } from "./poll";
import { Resource } from "./resource";

export const READERS_SHOWN = 50;

export interface ReaderView {
  kind: ReaderRow["kind"];
  address: string;
  offset: string;
  caughtUp: boolean;
  behindBytes: string;
  behindMessages: string;
  readingFor: string;
}

const plural = (n: number, one: string) => `${count(n)} ${one}${n === 1 ? "" : "s"}`;

export function describeReader(r: ReaderRow): ReaderView {
  const caughtUp = r.behind_bytes === 0;
  return {
    kind: r.kind,
    address: r.address,
    offset: r.offset,
    caughtUp,
    behindBytes: caughtUp ? "at the tail" : plural(r.behind_bytes, "byte"),
    behindMessages: caughtUp ? "0 messages" : `${r.behind_messages_capped ? "at least " : ""}${plural(r.behind_messages, "message")}`,
    readingFor: duration(Math.floor(r.since_ms / 1000)),
  };
}

export function readersSummary(p: ReaderPage): string {
  if (p.total === 0) return "No live reader: nobody follows this stream over SSE or long-poll right now.";
  const all = plural(p.total, "live reader");
  return p.truncated ? `${all}; the ${count(p.readers.length)} most behind are listed.` : `${all}.`;
}

type Fetcher = (bucket: string, stream: string, limit: number, signal?: AbortSignal) => Promise<ApiResult<ReaderPage>>;

export class ReadersModel {
  readonly list: Resource<ReaderPage, null>;
  private stopPolling: (() => void) | undefined;

  constructor(
    bucket: string,
    stream: string,
    fetcher: Fetcher = fetchReaders,
    private readonly pollMs = 2000,
    limit = READERS_SHOWN,
  ) {
    this.list = new Resource((_q, signal) => fetcher(bucket, stream, limit, signal));
  }

  get rows(): ReaderView[] {
    return this.list.data.value?.readers.map(describeReader) ?? [];
  }

  start(): void {
    void this.list.load(null);
    this.stopPolling = whileVisible(this.pollMs, () => void this.list.reload());
  }

  stop(): void {
    this.stopPolling?.();
    this.list.dispose();
  }
}
