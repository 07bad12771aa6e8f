// Per-stream waiters for long-poll and SSE. The store reports each commit; waiters of that
// stream incarnation wake and read committed state. Keyed by row id, so a recreated stream at
// the same path never wakes a reader of the old one, except to tell it the old one is gone.

import type { Store, StreamChange } from "../storage/store";
import { encodeChunks, type SsePayload, type SsePayloadMode } from "./sse-payload";

type Appended = Extract<StreamChange, { kind: "appended" }>;

export type Wake = "changed" | "gone" | "timeout" | "shutdown" | "aborted";

interface Waiter {
  wake(reason: Wake): void;
}

export class LiveHub {
  private readonly waiters = new Map<number, Set<Waiter>>();
  /** The newest committed append of each stream that has live readers, and its encoded frames. */
  private readonly latest = new Map<number, { change: Appended; frames: Map<SsePayloadMode, SsePayload> }>();
  private size = 0;
  private shuttingDown = false;

  constructor(store: Store, readonly maxWaiters: number) {
    store.onChange((changes) => this.dispatch(changes));
  }

  get active(): number {
    return this.size;
  }

  get full(): boolean {
    return this.size >= this.maxWaiters;
  }

  /** Resolves on the next commit that touches stream `id`, its deletion, the timeout, or shutdown. */
  wait(id: number, timeoutMs: number, signal?: AbortSignal): Promise<Wake> {
    if (this.shuttingDown) return Promise.resolve("shutdown");
    if (signal?.aborted) return Promise.resolve("aborted");
    return new Promise<Wake>((resolve) => {
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      const timer = setTimeout(() => waiter.wake("timeout"), timeoutMs);
      const onAbort = () => waiter.wake("aborted");
      const waiter: Waiter = {
        wake: (reason) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          if (set!.delete(waiter)) this.size--;
          if (set!.size === 0 && this.waiters.get(id) === set) {
            this.waiters.delete(id);
            // The last reader left without a change to read: nobody will ask for the newest
            // append, so its bytes are not kept until the stream next changes, if ever.
            if (reason === "timeout" || reason === "aborted") this.latest.delete(id);
          }
          resolve(reason);
        },
      };
      set.add(waiter);
      this.size++;
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Ends every wait; live readers then send their final event. */
  shutdown(): void {
    this.shuttingDown = true;
    for (const set of [...this.waiters.values()]) for (const w of [...set]) w.wake("shutdown");
  }

  /**
   * The live fast path: when a reader woke exactly at the start of the newest append and that
   * append reaches the current tail, its bytes come from the commit itself, not another query,
   * and are encoded once for every such reader.
   */
  payloadAt(id: number, offset: number, tail: number, limitBytes: number, mode: SsePayloadMode): SsePayload | null {
    const entry = this.latest.get(id);
    if (!entry || entry.change.start !== offset || entry.change.state.tail !== tail) return null;
    if (tail - offset > limitBytes) return null;
    let frame = entry.frames.get(mode);
    if (!frame) entry.frames.set(mode, (frame = encodeChunks(entry.change.messages, offset, tail, true, mode)));
    return frame;
  }

  private dispatch(changes: StreamChange[]): void {
    for (const change of changes) {
      const id = change.kind === "gone" ? change.id : change.state.id;
      const set = this.waiters.get(id);
      if (!set) {
        this.latest.delete(id);
        continue;
      }
      if (change.kind === "appended") this.latest.set(id, { change, frames: new Map() });
      else if (change.kind === "gone") this.latest.delete(id);
      for (const w of [...set]) w.wake(change.kind === "gone" ? "gone" : "changed");
    }
  }
}
