// A value loaded from the introspection API: the latest answer wins (an older request
// still in flight is aborted), errors are kept as text, and the last good data stays on
// screen while a reload runs.
import { batch, signal } from "@preact/signals";
import type { ApiResult } from "../api/introspection";

export class Resource<T, Q> {
  readonly data = signal<T | null>(null);
  readonly error = signal<{ status: number; code?: string; message: string } | null>(null);
  readonly loading = signal(false);
  private query: Q | undefined;
  private abort: AbortController | undefined;

  constructor(private readonly fetcher: (q: Q, signal: AbortSignal) => Promise<ApiResult<T>>) {}

  async load(q: Q): Promise<void> {
    this.query = q;
    this.abort?.abort();
    const ctrl = new AbortController();
    this.abort = ctrl;
    this.loading.value = true;
    const r = await this.fetcher(q, ctrl.signal);
    if (ctrl.signal.aborted) return;
    batch(() => {
      this.loading.value = false;
      if (r.ok) {
        this.data.value = r.data;
        this.error.value = null;
      } else this.error.value = { status: r.status, code: r.code, message: r.message };
    });
  }

  reload(): Promise<void> {
    return this.query === undefined ? Promise.resolve() : this.load(this.query);
  }

  dispose(): void {
    this.abort?.abort();
  }
}
