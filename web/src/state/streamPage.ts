// The stream page's view of one stream: its introspection record, re-read on a timer and
// immediately after any write this console sends to it, plus the append-rate series.
import { signal } from "@preact/signals";
import { whileVisible } from "./poll";
import { introspection, protocolPath, type StreamDetail } from "../api/introspection";
import { Resource } from "./resource";
import { RateWindow, type RatePoint } from "./rate";
import { onStreamChanged } from "./transport";

export class StreamPageModel {
  readonly detail: Resource<StreamDetail, null>;
  readonly rate = signal<RatePoint[]>([]);
  readonly loadedAt = signal<number | null>(null);
  private readonly window = new RateWindow();
  private stopPolling: (() => void) | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    readonly bucket: string,
    readonly stream: string,
    private readonly pollMs = 1000,
  ) {
    this.detail = new Resource((_q, signal) => introspection.stream(bucket, stream, signal));
  }

  get path(): string {
    return this.detail.data.value?.path ?? protocolPath(this.bucket, this.stream);
  }

  async refresh(): Promise<void> {
    await this.detail.load(null);
    const d = this.detail.data.value;
    if (d && !this.detail.error.value) {
      this.loadedAt.value = Date.now();
      this.rate.value = this.window.add({ t: Date.now(), count: d.message_count, bytes: d.tail_offset });
    }
  }

  private nudgeTimer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Something showed that the stream changed (the live tail received data): re-read soon,
   * at most once per 250 ms, instead of waiting for the next poll.
   */
  nudge(): void {
    if (this.nudgeTimer) return;
    this.nudgeTimer = setTimeout(() => {
      this.nudgeTimer = undefined;
      void this.refresh();
    }, 250);
  }

  start(): void {
    void this.refresh();
    this.stopPolling = whileVisible(this.pollMs, () => void this.refresh());
    this.unsubscribe = onStreamChanged((path) => {
      if (path === this.path) void this.refresh();
    });
  }

  stop(): void {
    this.stopPolling?.();
    clearTimeout(this.nudgeTimer);
    this.unsubscribe?.();
    this.detail.dispose();
  }
}
