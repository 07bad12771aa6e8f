// The message viewer's window onto a stream: a run of consecutive messages, opened at the
// oldest, the newest, an offset or a time, and grown a page at a time at either end. Where each
// message starts and when it was appended comes from the introspection API's message index;
// the bytes come from ordinary protocol reads (format=ndjson on JSON streams, so they are the
// stored bytes, cut exactly at the index's sizes). At most MAX_ROWS messages are held, whatever
// the stream's length: growing one end drops the far end, and the list on screen renders only
// the rows in view (components/stream/MessageList.tsx).
import { batch, signal } from "@preact/signals";
import type { ApiResult, IndexAt, MessageIndexPage, MessageMeta } from "../api/introspection";
import type { ContentKind } from "../api/contentKind";

export const PAGE_MESSAGES = 200;
/** A page's reads stop at this many bytes (a single larger message is still read whole). */
export const PAGE_BYTES = 1024 * 1024;
export const MAX_ROWS = 10_000;

export interface Message {
  offset: number;
  size: number;
  atMs: number | null;
  /** JSON and text streams: the message's text (a JSON message without its stored LF). */
  text?: string;
  /** Byte streams: the bytes. */
  bytes?: Uint8Array;
}

export type OpenAt = { kind: "oldest" } | { kind: "newest" } | { kind: "offset"; position: number } | { kind: "time"; atMs: number };

export type ReadResult = { ok: true; bytes: Uint8Array; next: number } | { ok: false; message: string };

export interface WindowDeps {
  index(at: IndexAt, limit: number, signal: AbortSignal): Promise<ApiResult<MessageIndexPage>>;
  /** The stream's bytes from `offset`, at most `maxBytes` of them (whole messages on a JSON stream). */
  read(offset: number, maxBytes: number, signal: AbortSignal): Promise<ReadResult>;
}

const decoder = new TextDecoder();

export class MessageWindow {
  readonly rows = signal<Message[]>([]);
  readonly hasBefore = signal(false);
  readonly hasAfter = signal(false);
  readonly tail = signal(0);
  readonly loading = signal<"open" | "before" | "after" | null>(null);
  readonly error = signal<string | null>(null);
  readonly opened = signal<OpenAt | null>(null);
  readonly selected = signal<number | null>(null);
  private abort: AbortController | undefined;
  /** The retained floor: no row below it is ever kept, even from a page read before it moved. */
  private floor = 0;

  constructor(
    private readonly deps: WindowDeps,
    readonly kind: ContentKind,
    private readonly maxRows = MAX_ROWS,
  ) {}

  async open(at: OpenAt): Promise<void> {
    this.abort?.abort();
    const ctrl = new AbortController();
    this.abort = ctrl;
    batch(() => {
      this.opened.value = at;
      this.loading.value = "open";
    });
    const where: IndexAt = at.kind === "oldest" ? { from: 0 } : at.kind === "newest" ? { before: Number.MAX_SAFE_INTEGER } : at.kind === "offset" ? { from: at.position } : { atMs: at.atMs };
    const page = await this.fetch(where, ctrl.signal);
    if (!page || ctrl.signal.aborted) return;
    batch(() => {
      this.rows.value = page.rows.filter((m) => m.offset >= this.floor);
      this.hasBefore.value = page.hasBefore;
      this.hasAfter.value = page.hasAfter;
      this.tail.value = page.index.tail_offset;
      this.selected.value = (at.kind === "newest" ? page.rows[page.rows.length - 1] : page.rows[0])?.offset ?? null;
      this.loading.value = null;
      this.error.value = null;
    });
  }

  /** The next page after the last row (or, past the end, whatever was appended since). */
  async loadAfter(): Promise<void> {
    if (this.loading.value !== null) return;
    const rows = this.rows.value;
    const last = rows[rows.length - 1];
    const from = last ? last.offset + last.size : this.tail.value;
    const ctrl = this.controller();
    this.loading.value = "after";
    const page = await this.fetch({ from }, ctrl.signal);
    if (!page || ctrl.signal.aborted) return;
    batch(() => {
      // The rows as they are now: retention may have dropped some while this page was read.
      const now = this.rows.value;
      const end = now.length ? now[now.length - 1]!.offset + now[now.length - 1]!.size : from;
      const fresh = page.rows.filter((m) => m.offset >= Math.max(end, this.floor));
      let next = now.concat(fresh);
      const over = next.length - this.maxRows;
      if (over > 0) next = next.slice(over);
      this.rows.value = next;
      if (over > 0) this.hasBefore.value = true;
      this.hasAfter.value = page.hasAfter;
      this.tail.value = page.index.tail_offset;
      if (this.selected.value === null && next.length) this.selected.value = next[0]!.offset;
      this.loading.value = null;
      this.error.value = null;
    });
  }

  /** The page before the first row. */
  async loadBefore(): Promise<void> {
    if (this.loading.value !== null) return;
    const rows = this.rows.value;
    const first = rows[0];
    if (!first) return;
    const ctrl = this.controller();
    this.loading.value = "before";
    const page = await this.fetch({ before: first.offset }, ctrl.signal);
    if (!page || ctrl.signal.aborted) return;
    batch(() => {
      const now = this.rows.value;
      const older = page.rows.filter((m) => m.offset < (now[0]?.offset ?? first.offset) && m.offset >= this.floor);
      let next = older.concat(now);
      const over = next.length - this.maxRows;
      if (over > 0) next = next.slice(0, next.length - over);
      this.rows.value = next;
      this.hasBefore.value = page.hasBefore;
      if (over > 0) this.hasAfter.value = true;
      this.tail.value = page.index.tail_offset;
      this.loading.value = null;
      this.error.value = null;
    });
  }

  /** After a write: if the window reaches the end, show what was appended. */
  async refreshEnd(): Promise<void> {
    if (this.hasAfter.value || this.loading.value !== null || this.opened.value === null) return;
    await this.loadAfter();
  }

  /**
   * Retention moved the floor: rows below it can no longer be read, so they leave the window
   * (a window left empty opens again at the oldest message there is).
   */
  async dropBelow(floor: number): Promise<void> {
    this.floor = Math.max(this.floor, floor);
    const rows = this.rows.value;
    if (!rows.length || rows[0]!.offset >= floor) return;
    const kept = rows.filter((m) => m.offset >= floor);
    if (!kept.length) return this.open({ kind: "oldest" });
    batch(() => {
      this.rows.value = kept;
      this.hasBefore.value = kept[0]!.offset > floor;
      if (this.selected.value !== null && this.selected.value < floor) this.selected.value = kept[0]!.offset;
    });
  }

  select(offset: number | null): void {
    this.selected.value = offset;
  }

  dispose(): void {
    this.abort?.abort();
  }

  private controller(): AbortController {
    const ctrl = new AbortController();
    this.abort = ctrl;
    return ctrl;
  }

  /** One page: the index, then the bytes of as many of its messages as fit in PAGE_BYTES. */
  private async fetch(at: IndexAt, signal: AbortSignal): Promise<{ index: MessageIndexPage; rows: Message[]; hasBefore: boolean; hasAfter: boolean } | null> {
    const fail = (message: string) => {
      if (signal.aborted) return null;
      batch(() => {
        this.loading.value = null;
        this.error.value = message;
      });
      return null;
    };
    const idx = await this.deps.index(at, PAGE_MESSAGES, signal);
    if (signal.aborted) return null;
    if (!idx.ok) return fail(`${idx.status} ${idx.code ?? ""} ${idx.message}`.replace(/\s+/g, " ").trim());
    // Backwards, the messages nearest the window are the ones to keep.
    const metas = fitting(idx.data.messages, "before" in at);
    if (metas.length === 0) return { index: idx.data, rows: [], hasBefore: idx.data.has_before, hasAfter: idx.data.has_after };
    const start = metas[0]!.offset;
    const want = metas[metas.length - 1]!.offset + metas[metas.length - 1]!.size - start;
    const read = await this.deps.read(start, want, signal);
    if (signal.aborted) return null;
    if (!read.ok) return fail(read.message);
    const rows: Message[] = [];
    for (const m of metas) {
      const from = m.offset - start;
      if (from + m.size > read.bytes.length) break;
      rows.push(this.message(m, read.bytes.subarray(from, from + m.size)));
    }
    if (rows.length === 0) return fail(`The message at ${start} (${metas[0]!.size} bytes) is larger than one read returns.`);
    // Messages that did not fit this page are the next page's.
    const short = rows.length < idx.data.messages.length && !("before" in at);
    const cutBefore = "before" in at && metas.length < idx.data.messages.length;
    return { index: idx.data, rows, hasBefore: idx.data.has_before || cutBefore, hasAfter: idx.data.has_after || short };
  }

  private message(m: MessageMeta, bytes: Uint8Array): Message {
    const base = { offset: m.offset, size: m.size, atMs: m.at_ms };
    if (this.kind === "json") return { ...base, text: decoder.decode(bytes.subarray(0, bytes.length - 1)) };
    if (this.kind === "text") return { ...base, text: decoder.decode(bytes) };
    return { ...base, bytes: bytes.slice() };
  }
}

/** As many of the page's messages as fit in PAGE_BYTES, from its start (or its end); at least one. */
function fitting(messages: MessageMeta[], fromEnd: boolean): MessageMeta[] {
  const ordered = fromEnd ? [...messages].reverse() : messages;
  let bytes = 0;
  let n = 0;
  for (const m of ordered) {
    if (n > 0 && bytes + m.size > PAGE_BYTES) break;
    bytes += m.size;
    n++;
  }
  return fromEnd ? messages.slice(messages.length - n) : messages.slice(0, n);
}
