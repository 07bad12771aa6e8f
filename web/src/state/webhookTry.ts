// "Try a webhook" on a bucket's page: a webhook subscription on one stream of the bucket pointed
// at the console's test receiver (the server hands it the wakes in-process: docs/api.md,
// Subscriptions), an append to that stream, and the wake arriving, signature checked. Each
// request is an ordinary protocol request on the attempt timeline; deleting the subscription ends it.
import { signal } from "@preact/signals";
import type { ApiResult } from "../api/introspection";
import { appendRequest, createRequest } from "../api/requests";
import { createWebhookRequest, deleteSubscriptionRequest, fetchReceivedWakes, testReceiverUrl, type ReceivedWake, type ReceivedWakes } from "../api/subscriptions";
import type { Exchange } from "../api/types";
import type { Transport } from "./transport";

export const TRY_STREAM = "webhook-try";

export type TryStep = "idle" | "working" | "waiting" | "arrived" | "failed" | "deleted";

/** What went wrong with an exchange, in one line; null when it succeeded. */
export function failureOf(ex: Exchange, what: string): string | null {
  const r = ex.response;
  if (!r) return `${what}: ${ex.networkError ?? "no answer"}`;
  if (r.status < 300) return null;
  let detail = r.statusText;
  try {
    const e = (JSON.parse(r.bodyText) as { error?: { code?: string; message?: string } }).error;
    if (e) detail = `${e.code ?? ""} ${e.message ?? ""}`.trim();
  } catch {
    detail = r.bodyText.slice(0, 120) || r.statusText;
  }
  return `${what}: ${r.status} ${detail}`;
}

type WakesFetcher = (bucket: string, signal?: AbortSignal) => Promise<ApiResult<ReceivedWakes>>;

export class WebhookTryModel {
  readonly step = signal<TryStep>("idle");
  readonly error = signal<string | null>(null);
  readonly subscriptionId = signal<string | null>(null);
  /** The wakes of this try's subscription, newest first. */
  readonly wakes = signal<ReceivedWake[]>([]);
  private timer: ReturnType<typeof setInterval> | undefined;
  private appended = 0;
  /** The newest wake when the last append was sent: a wake other than it answers that append. */
  private newestAtAppend: string | null = null;

  constructor(
    private readonly bucket: string,
    private readonly transport: Transport,
    private readonly origin: string,
    private readonly fetchWakes: WakesFetcher = fetchReceivedWakes,
    private readonly pollMs = 500,
    private readonly newId = () => `console-try-${Math.random().toString(36).slice(2, 8)}`,
  ) {}

  get receiverUrl(): string {
    return testReceiverUrl(this.origin, this.bucket);
  }

  /** Ensures the stream, creates the subscription, appends once, and watches for the wake. */
  async start(): Promise<void> {
    if (this.step.value === "working") return;
    this.error.value = null;
    this.wakes.value = [];
    this.appended = 0;
    this.newestAtAppend = null;
    this.step.value = "working";
    const id = this.newId();
    const path = `/${encodeURIComponent(this.bucket)}/${TRY_STREAM}`;
    if (!(this.check(await this.transport(createRequest({ path, contentType: "application/json", lifetime: { kind: "none" }, seed: "" })), `Creating ${TRY_STREAM}`))) return;
    const description = "Made by the console's “Try a webhook”; delete it when done.";
    if (!(this.check(await this.transport(createWebhookRequest(this.bucket, id, [TRY_STREAM], this.receiverUrl, description)), "Creating the subscription"))) return;
    this.subscriptionId.value = id;
    this.poll();
    await this.append();
  }

  /** One more message on the stream: the next wake follows (the receiver answers `done`). */
  async append(): Promise<void> {
    if (this.subscriptionId.value === null) return;
    this.appended++;
    this.newestAtAppend = this.wakes.value[0]?.wake_id ?? null;
    const body = JSON.stringify([{ hello: "from the console", n: this.appended }]);
    const ex = await this.transport(appendRequest({ path: `/${encodeURIComponent(this.bucket)}/${TRY_STREAM}`, contentType: "application/json", body, seq: "", incarnation: "" }));
    if (this.check(ex, "Appending")) this.step.value = this.answered() ? "arrived" : "waiting";
  }

  async remove(): Promise<void> {
    const id = this.subscriptionId.value;
    if (id === null) return;
    if (!(this.check(await this.transport(deleteSubscriptionRequest(this.bucket, id)), "Deleting the subscription"))) return;
    this.stop();
    this.subscriptionId.value = null;
    this.step.value = "deleted";
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Asks the receiver once for this subscription's wakes. */
  async refresh(): Promise<void> {
    const id = this.subscriptionId.value;
    if (id === null) return;
    const r = await this.fetchWakes(this.bucket);
    if (!r.ok || this.subscriptionId.value !== id) return;
    this.wakes.value = r.data.wakes.filter((w) => w.subscription_id === id);
    if (this.step.value === "waiting" && this.answered()) this.step.value = "arrived";
  }

  private answered(): boolean {
    const newest = this.wakes.value[0]?.wake_id;
    return newest !== undefined && newest !== this.newestAtAppend;
  }

  private poll(): void {
    this.stop();
    this.timer = setInterval(() => void this.refresh(), this.pollMs);
  }

  private check(ex: Exchange, what: string): boolean {
    const failure = failureOf(ex, what);
    if (failure === null) return true;
    this.error.value = failure;
    this.step.value = "failed";
    return false;
  }
}
