// The message viewer: one page of a catch-up read at a time (never the whole stream, which
// may hold 100,000 messages), from "oldest", "now" or an offset, with next/previous paging
// by the offsets the server returns.
import { batch, signal } from "@preact/signals";
import type { Exchange } from "../api/types";
import type { ContentKind } from "../api/contentKind";
import { getHeader } from "../api/headers";
import { messagesWithOffsets, splitJsonArray } from "../api/jsonArray";
import { offsetPosition } from "../api/offsets";
import type { Transport } from "./transport";

export interface ViewerRow {
  key: string;
  position?: number;
  text?: string;
  bytes?: Uint8Array;
}

export interface ViewerPage {
  from: string;
  fromPosition?: number;
  to: string;
  upToDate: boolean;
  closed: boolean;
  rows: ViewerRow[];
  exchange: Exchange;
}

export const PAGE_BYTES: Record<ContentKind, number> = { json: 16 * 1024, text: 16 * 1024, binary: 2 * 1024 };

export class ViewerModel {
  readonly page = signal<ViewerPage | null>(null);
  readonly error = signal<string | null>(null);
  readonly loading = signal(false);
  readonly history = signal<string[]>([]);

  constructor(
    private readonly transport: Transport,
    readonly path: string,
    readonly kind: ContentKind,
  ) {}

  /** Start over at "-1" (oldest), "now" or an offset token. */
  open(from: string): Promise<void> {
    this.history.value = [];
    return this.load(from);
  }

  next(): Promise<void> {
    const p = this.page.value;
    if (!p) return Promise.resolve();
    this.history.value = [...this.history.value, p.from];
    return this.load(p.to);
  }

  prev(): Promise<void> {
    const h = this.history.value;
    const from = h[h.length - 1];
    if (from === undefined) return Promise.resolve();
    this.history.value = h.slice(0, -1);
    return this.load(from);
  }

  reload(): Promise<void> {
    const p = this.page.value;
    return p ? this.load(p.from) : Promise.resolve();
  }

  private async load(from: string): Promise<void> {
    this.loading.value = true;
    const q = new URLSearchParams({ offset: from, max_bytes: String(PAGE_BYTES[this.kind]) });
    const ex = await this.transport({ method: "GET", path: `${this.path}?${q.toString()}`, headers: [] }, { keepBytes: this.kind === "binary" });
    batch(() => {
      this.loading.value = false;
      const res = ex.response;
      if (!res || res.status !== 200) {
        this.error.value = ex.networkError ?? `${res?.status} ${ex.errorCode ?? res?.statusText ?? ""}${ex.errorMessage ? `: ${ex.errorMessage}` : ""}`;
        return;
      }
      this.error.value = null;
      const to = getHeader(res.headers, "stream-next-offset") ?? from;
      const fromPosition = from === "-1" ? undefined : from === "now" ? offsetPosition(to) : offsetPosition(from);
      const rows = this.rowsOf(res.bodyText, res.bodyBytes, from, fromPosition, to);
      this.page.value = {
        from,
        // For "-1" the start is where the first row turned out to be (above any retention floor).
        fromPosition: fromPosition ?? rows[0]?.position ?? offsetPosition(to),
        to,
        upToDate: getHeader(res.headers, "stream-up-to-date") === "true",
        closed: getHeader(res.headers, "stream-closed") === "true",
        rows,
        exchange: ex,
      };
    });
  }

  private rowsOf(text: string, bytes: Uint8Array | undefined, from: string, fromPosition: number | undefined, to: string): ViewerRow[] {
    if (this.kind === "json") {
      let texts: string[];
      try {
        texts = splitJsonArray(text);
      } catch {
        return [{ key: `${from}:raw`, text }];
      }
      // Positions are exact only when the start is known: "-1" may sit above a retention floor.
      const start = fromPosition ?? (from === "-1" ? this.startFromEnd(texts, to) : undefined);
      return messagesWithOffsets(texts, start ?? 0).map((m, i) => ({ key: `${from}:${i}`, position: start === undefined ? undefined : m.position, text: m.text }));
    }
    // Text and bytes are not split into messages: the page is one run of bytes ending at `to`.
    const size = bytes?.length ?? new TextEncoder().encode(text).length;
    const end = offsetPosition(to);
    const start = fromPosition ?? (end === undefined ? undefined : end - size);
    if (this.kind === "binary") return bytes && bytes.length ? [{ key: `${from}:bin`, position: start, bytes }] : [];
    return text ? [{ key: `${from}:text`, position: start, text }] : [];
  }

  /** Work back from the end offset: the page's bytes end exactly at `to`. */
  private startFromEnd(texts: string[], to: string): number | undefined {
    const end = offsetPosition(to);
    if (end === undefined) return undefined;
    const enc = new TextEncoder();
    return end - texts.reduce((sum, t) => sum + enc.encode(t).length + 1, 0);
  }
}
