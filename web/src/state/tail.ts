// Live tail of one stream over SSE. Owns: the rows kept in memory (capped: the oldest are
// dropped and counted), the reconnect loop (resume from the last control offset, back off
// after errors, give up after a bound), and an honest status a user can act on.
import { signal } from "@preact/signals";
import type { SseControl, SseEnd, SseHandlers } from "../api/sse";
import { messagesWithOffsets, splitJsonArray } from "../api/jsonArray";
import { offsetPosition } from "../api/offsets";
import { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from "./backoff";

export type TailStatus = "idle" | "connecting" | "live" | "reconnecting" | "closed" | "gone" | "failed" | "stopped";

export interface TailRow {
  key: number;
  /** Byte position the message starts at, when known. */
  position?: number;
  receivedAt: number;
  kind: "json" | "text" | "binary";
  text?: string;
  bytes?: Uint8Array;
}

export interface TailConnectRequest {
  offset: string;
  incarnation?: string;
  signal: AbortSignal;
}

export interface TailDeps {
  connect(req: TailConnectRequest, handlers: SseHandlers): Promise<SseEnd>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  now(): number;
  random(): number;
}

export interface TailOptions {
  cap?: number;
  backoff?: BackoffPolicy;
  /** A clean end sooner than this after connecting counts as a failure (no tight loops). */
  minHealthyMs?: number;
}

export const TAIL_CAPS = [100, 500, 2000] as const;

export class TailModel {
  readonly status = signal<TailStatus>("idle");
  readonly rows = signal<TailRow[]>([]);
  readonly dropped = signal(0);
  readonly received = signal(0);
  readonly nextOffset = signal<string | undefined>(undefined);
  readonly attempt = signal(0);
  readonly retryAt = signal<number | undefined>(undefined);
  readonly detail = signal<string>("");
  readonly incarnation = signal<string | undefined>(undefined);
  readonly cap = signal(500);
  private abort: AbortController | undefined;
  private key = 0;
  private readonly policy: BackoffPolicy;
  private readonly minHealthyMs: number;

  constructor(
    private readonly kind: "json" | "text" | "binary",
    private readonly deps: TailDeps,
    opts: TailOptions = {},
  ) {
    this.cap.value = opts.cap ?? 500;
    this.policy = opts.backoff ?? DEFAULT_BACKOFF;
    this.minHealthyMs = opts.minHealthyMs ?? 1000;
  }

  get running(): boolean {
    return this.abort !== undefined;
  }

  /** Start following from "now", "-1" (oldest) or an offset token. Restarts if running. */
  start(from: string): Promise<void> {
    this.stop();
    this.rows.value = [];
    this.dropped.value = 0;
    this.received.value = 0;
    this.attempt.value = 0;
    this.incarnation.value = undefined;
    this.nextOffset.value = undefined;
    const ctrl = new AbortController();
    this.abort = ctrl;
    return this.loop(from, ctrl.signal);
  }

  stop(): void {
    if (!this.abort) return;
    this.abort.abort();
    this.abort = undefined;
    if (!["closed", "gone", "failed"].includes(this.status.value)) this.status.value = "stopped";
    this.retryAt.value = undefined;
  }

  setCap(n: number): void {
    this.cap.value = n;
    this.push([]);
  }

  private async loop(from: string, signal: AbortSignal): Promise<void> {
    let offset = from;
    this.status.value = "connecting";
    this.detail.value = "";
    while (!signal.aborted) {
      const openedAt = this.deps.now();
      let position = offsetPosition(offset === "-1" ? "0" : offset);
      let sawControl = false;
      const end = await this.deps.connect(
        { offset, incarnation: this.incarnation.value, signal },
        {
          onOpen: (info) => {
            if (info.incarnation) this.incarnation.value ??= info.incarnation;
          },
          onData: (payload) => {
            position = this.acceptData(payload, position);
          },
          onControl: (c: SseControl) => {
            sawControl = true;
            offset = c.streamNextOffset;
            position = offsetPosition(offset);
            this.nextOffset.value = offset;
            if (this.status.value !== "live") {
              this.status.value = "live";
              this.detail.value = "";
              this.retryAt.value = undefined;
            }
            this.attempt.value = 0;
          },
        },
      );
      if (signal.aborted || end.kind === "aborted") return;
      switch (end.kind) {
        case "closed":
          return this.finish("closed", "the stream is closed: nothing more will be appended");
        case "refused":
          if (end.status === 404) return this.finish("gone", "the stream no longer exists (404)");
          if (end.status === 412)
            return this.finish("gone", `the stream was deleted and recreated (412; new incarnation ${end.incarnation ?? "?"})`);
          if (end.status === 410) return this.finish("gone", "the offset fell below retention (410)");
          if (end.status >= 400 && end.status < 500 && end.status !== 429)
            return this.finish("failed", `refused with ${end.status}${end.code ? ` ${end.code}` : ""}`);
          break; // 5xx / 429: transient, back off
        case "ended":
          // The server ends SSE responses after a lifetime (spec §4.4): resume at once,
          // unless it ended so fast that resuming would become a request storm.
          if (sawControl && this.deps.now() - openedAt >= this.minHealthyMs) {
            this.status.value = "reconnecting";
            this.detail.value = "server ended the response; resuming from the last offset";
            continue;
          }
          break;
        default:
          break;
      }
      const why =
        end.kind === "server-error" ? `server sent an error event: ${end.message}` : end.kind === "failed" ? end.message : end.kind === "refused" ? `HTTP ${end.status}` : "connection ended early";
      this.attempt.value += 1;
      if (this.attempt.value > this.policy.maxAttempts) return this.finish("failed", `gave up after ${this.policy.maxAttempts} attempts: ${why}`);
      const delay = backoffDelay(this.attempt.value, this.policy, this.deps.random);
      this.status.value = "reconnecting";
      this.detail.value = why;
      this.retryAt.value = this.deps.now() + delay;
      await this.deps.sleep(delay, signal);
      this.retryAt.value = undefined;
    }
  }

  private finish(status: TailStatus, detail: string): void {
    this.status.value = status;
    this.detail.value = detail;
    this.retryAt.value = undefined;
    this.abort = undefined;
  }

  /** Turns one data event into rows; returns the position after it. */
  private acceptData(payload: string | Uint8Array, position: number | undefined): number | undefined {
    const now = this.deps.now();
    if (payload instanceof Uint8Array) {
      this.push([{ key: ++this.key, position, receivedAt: now, kind: "binary", bytes: payload }]);
      return position === undefined ? undefined : position + payload.length;
    }
    if (this.kind === "json") {
      let texts: string[];
      try {
        texts = splitJsonArray(payload);
      } catch {
        texts = [payload];
      }
      const msgs = messagesWithOffsets(texts, position ?? 0);
      this.push(msgs.map((m) => ({ key: ++this.key, position: position === undefined ? undefined : m.position, receivedAt: now, kind: "json", text: m.text })));
      const last = msgs[msgs.length - 1];
      return position === undefined || !last ? position : last.position + new TextEncoder().encode(last.text).length + 1;
    }
    this.push([{ key: ++this.key, position, receivedAt: now, kind: "text", text: payload }]);
    return position === undefined ? undefined : position + new TextEncoder().encode(payload).length;
  }

  private push(rows: TailRow[]): void {
    this.received.value += rows.length;
    const all = rows.length ? this.rows.value.concat(rows) : this.rows.value;
    const over = all.length - this.cap.value;
    if (over > 0) {
      this.dropped.value += over;
      this.rows.value = all.slice(over);
    } else if (rows.length) this.rows.value = all;
  }
}

/** Real dependencies: fetch-based SSE against this origin. */
export function browserTailDeps(path: string, readSse: typeof import("../api/sse").readSse): TailDeps {
  return {
    connect: ({ offset, incarnation, signal }, handlers) =>
      readSse(
        {
          url: `${location.origin}${path}?offset=${encodeURIComponent(offset)}&live=sse`,
          headers: incarnation ? { "Stream-Incarnation": incarnation } : undefined,
          signal,
        },
        handlers,
      ),
    sleep: (ms, signal) =>
      new Promise((resolve) => {
        const t = setTimeout(resolve, ms);
        signal.addEventListener("abort", () => {
          clearTimeout(t);
          resolve();
        });
      }),
    now: () => Date.now(),
    random: Math.random,
  };
}
