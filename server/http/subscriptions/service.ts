// DS subscriptions at run time (DS §6–§7): the records the store keeps, changed one subscription at
// a time (each change is a pure rule of protocol/subscription-wake.ts, saved before anything is
// sent), woken by the store's change listener after appends become durable, and delivered off the
// write path: a webhook wake is POSTed, signed, with a timeout and bounded retries; a pull-wake
// wake is appended to the subscription's wake stream. A subscription has at most one wake
// outstanding, and appends meanwhile only move its streams' tails, so what waits per subscription
// is bounded by construction. Leases run on timers re-armed from the records after a restart.

import { randomBytes } from "node:crypto";
import type { Logger } from "../../ops/log";
import { jsonMessages } from "../../protocol/json-body";
import { isProtocolError, protocolError, type ProtocolError } from "../../protocol/errors";
import { V1_PREFIX } from "../../protocol/paths";
import { splitKey } from "../../protocol/state";
import type { WakeAnswer } from "../../protocol/subscription-acks";
import { sameConfig, type SubscriptionConfig } from "../../protocol/subscription-config";
import { subscriptionPathOf, subscriptionStreamKey, V1_SCOPE } from "../../protocol/subscription-paths";
import * as wake from "../../protocol/subscription-wake";
import type { Store, ToldChange } from "../../storage/store";
import { NO_DELIVERY, type StoredSubscription, type SubscriptionStore } from "../../storage/subscriptions";
import { showOffset, subscriptionView } from "./view";
import type { SubscriptionView } from "../../introspection-api";
import { SubscriptionListReads } from "./list-reads";
import { WakeSigning } from "./wake-signing";
import { refusalOf, systemResolver, type Resolver } from "./webhook-target";
import { isTestReceiverUrl, TestReceiver } from "./test-receiver";

export interface SubscriptionOptions {
  /** Hosts and addresses a webhook may reach although they are internal (--webhook-allow-hosts). */
  allowHosts: readonly string[];
  log: Logger;
  /** How long one webhook POST may take before it counts as failed. */
  deliveryTimeoutMs?: number;
  /** Failed deliveries of a wake before the subscription waits for the next append. */
  maxAttempts?: number;
  /** The first retry's delay; each next one doubles, up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  resolve?: Resolver;
  now?: () => number;
}

export type Answer = { status: number; body: Record<string, unknown> | null } | ProtocolError;

/** Saves lost to another server before a change gives up (each loss means the other one progressed). */
const MAX_SAVE_ATTEMPTS = 16;
const keyOf = (scope: string, id: string) => `${scope}\u0000${id}`;
const newWakeId = () => `w_${randomBytes(12).toString("base64url")}`;

export class SubscriptionService {
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly leaseTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly retryTimers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly now: () => number;
  private readonly resolve: Resolver;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private closed = false;
  /** The console's test receiver: wakes to it are handed over here, not sent (test-receiver.ts). */
  readonly testReceiver: TestReceiver;
  /** The list of subscriptions, read once for each burst of changes. */
  private readonly lists: SubscriptionListReads;

  private constructor(
    private readonly store: Store,
    private readonly subs: SubscriptionStore,
    private readonly signing: WakeSigning,
    private readonly options: SubscriptionOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.resolve = options.resolve ?? systemResolver;
    this.timeoutMs = options.deliveryTimeoutMs ?? 10_000;
    this.maxAttempts = options.maxAttempts ?? 8;
    this.retryDelayMs = options.retryDelayMs ?? 1_000;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
    this.testReceiver = new TestReceiver(signing.jwk, this.now);
    this.lists = new SubscriptionListReads(
      () => subs.forWakes(),
      (error) => options.log.warn("subscriptions could not be read after a change of a stream", { error: String(error) }),
    );
  }

  static async open(store: Store, options: SubscriptionOptions): Promise<SubscriptionService> {
    const service = new SubscriptionService(store, store.subscriptions, await WakeSigning.open(store.subscriptions), options);
    store.onChange((changes) => service.changed(changes));
    for (const record of await store.subscriptions.all()) service.resume(record);
    return service;
  }

  close(): void {
    this.closed = true;
    for (const t of [...this.leaseTimers.values(), ...this.retryTimers.values()]) clearTimeout(t);
  }

  jwks(): Record<string, unknown> {
    return { keys: [this.signing.jwk] };
  }

  async get(scope: string, id: string): Promise<Answer> {
    const record = await this.subs.get(scope, id);
    return record ? { status: 200, body: this.view(record) } : notFound(id);
  }

  /** Every subscription of one scope, as GET shows each, by id: the console's list of a bucket's subscriptions. */
  async list(scope: string): Promise<SubscriptionView[]> {
    const records = (await this.subs.all()).filter((r) => r.scope === scope);
    return records.sort((a, b) => (a.state.id < b.state.id ? -1 : a.state.id > b.state.id ? 1 : 0)).map((r) => this.view(r));
  }

  put(scope: string, id: string, config: SubscriptionConfig, origin: string): Promise<Answer> {
    return this.locked(scope, id, async () => {
      const confirm = (existing: StoredSubscription): Answer =>
        sameConfig(existing.state.config, config) ? { status: 200, body: this.view(existing) } : protocolError("SUBSCRIPTION_ALREADY_EXISTS", `subscription ${id} exists with another configuration`);
      const existing = await this.subs.get(scope, id);
      if (existing) return confirm(existing);
      if (config.webhookUrl !== null && !isTestReceiverUrl(config.webhookUrl, scope, origin)) {
        const refused = await refusalOf(config.webhookUrl, this.options.allowHosts, this.resolve, "pass");
        if (refused !== null) return protocolError("WEBHOOK_URL_REJECTED", refused);
      }
      for (const path of [...config.streams, ...(config.wakeStream === null ? [] : [config.wakeStream])]) {
        if (subscriptionStreamKey(scope, path) === null) return protocolError("INVALID_SUBSCRIPTION", `${JSON.stringify(path)} names no stream here`);
      }
      const tails = await this.tails(scope, config.streams);
      const record: StoredSubscription = { version: 1, scope, origin, createdAtMs: this.now(), state: wake.newSubscription(id, config, [], tails), delivery: NO_DELIVERY };
      if (await this.subs.save(record)) return { status: 201, body: this.view(record) };
      // Another server created it meanwhile.
      const raced = await this.subs.get(scope, id);
      return raced ? confirm(raced) : notFound(id);
    });
  }

  remove(scope: string, id: string): Promise<Answer> {
    return this.locked(scope, id, async () => {
      if (!(await this.subs.remove(scope, id))) return notFound(id);
      this.clearTimers(keyOf(scope, id));
      return { status: 204, body: null };
    });
  }

  addStreams(scope: string, id: string, paths: readonly string[]): Promise<Answer> {
    return this.change(scope, id, async (record) => {
      if (paths.some((p) => subscriptionStreamKey(scope, p) === null)) return protocolError("INVALID_SUBSCRIPTION", "a path names no stream here");
      const tails = await this.tails(scope, paths);
      let state = record.state;
      for (const path of paths) state = wake.link(state, path, "explicit", tails(path));
      return { record: { ...record, state }, answer: { status: 204, body: null } };
    });
  }

  removeStream(scope: string, id: string, path: string): Promise<Answer> {
    return this.change(scope, id, async (record) => ({ record: { ...record, state: wake.unlinkExplicit(record.state, path) }, answer: { status: 204, body: null } }));
  }

  /** A webhook receiver's callback: acks under the wake it was given, and `done` ends the wake. */
  callback(scope: string, id: string, token: string | null, answer: WakeAnswer): Promise<Answer> {
    return this.answerWake(scope, id, token, answer, "webhook");
  }

  ack(scope: string, id: string, token: string | null, answer: WakeAnswer): Promise<Answer> {
    return this.answerWake(scope, id, token, answer, "pull-wake");
  }

  release(scope: string, id: string, token: string | null, answer: WakeAnswer): Promise<Answer> {
    return this.change(scope, id, async (record) => {
      const held = this.fenced(record, token, answer, "pull-wake");
      if (isProtocolError(held)) return held;
      const tails = await this.tails(scope, linkedPaths(record));
      const finished = wake.finishWake(record.state, tails, newWakeId(), this.now());
      return { record: { ...record, state: finished.state }, answer: { status: 204, body: null }, opened: finished.next };
    });
  }

  claim(scope: string, id: string, worker: string): Promise<Answer> {
    return this.change(scope, id, async (record) => {
      if (record.state.config.type !== "pull-wake") return protocolError("INVALID_SUBSCRIPTION", `subscription ${id} is not a pull-wake subscription`);
      const tails = await this.tails(scope, linkedPaths(record));
      const claimed = wake.claim(record.state, worker, tails, newWakeId(), this.now());
      if (!claimed.ok) return refusal(claimed.refusal);
      const state = claimed.state;
      const body = {
        wake_id: state.wake!.id,
        generation: state.generation,
        token: this.signing.token(subjectOf(scope, id), state.generation),
        streams: this.streamInfos(state, tails),
        lease_ttl_ms: state.config.leaseTtlMs,
      };
      return { record: { ...record, state }, answer: { status: 200, body }, opened: state.generation !== record.state.generation };
    });
  }

  private answerWake(scope: string, id: string, token: string | null, answer: WakeAnswer, type: "webhook" | "pull-wake"): Promise<Answer> {
    return this.change(scope, id, async (record) => {
      const held = this.fenced(record, token, answer, type);
      if (isProtocolError(held)) return held;
      const tails = await this.tails(scope, linkedPaths(record));
      const acked = wake.applyAcks(record.state, answer.acks, tails);
      if (!acked.ok) return refusal(acked.refusal);
      if (!answer.done) return { record: { ...record, state: wake.extendLease(acked.state, this.now()) }, answer: { status: 200, body: { ok: true, next_wake: false } } };
      const finished = wake.finishWake(acked.state, tails, newWakeId(), this.now());
      return { record: { ...record, state: finished.state }, answer: { status: 200, body: { ok: true, next_wake: finished.next } }, opened: finished.next };
    });
  }

  /** The wake a token and an answer name, if it is the one outstanding (else FENCED or TOKEN_INVALID). */
  private fenced(record: StoredSubscription, token: string | null, answer: WakeAnswer, type: "webhook" | "pull-wake"): ProtocolError | null {
    const { state } = record;
    if (state.config.type !== type) return protocolError("INVALID_SUBSCRIPTION", `subscription ${state.id} is not a ${type} subscription`);
    const generation = token === null ? null : this.signing.generationOf(token, subjectOf(record.scope, state.id));
    if (generation === null) return protocolError("TOKEN_INVALID", "the token is not one this server gave for this subscription");
    const checked = wake.checkFence(state, answer, this.now());
    if (!checked.ok) return refusal(checked.refusal);
    return generation === state.generation ? null : protocolError("FENCED", "the token is for another generation");
  }

  // ---- waking

  private changed(changes: ToldChange[]): void {
    if (this.closed) return;
    for (const change of changes) {
      if (change.kind === "appended") this.appended(change.state.bucket, change.state.name, change.state.createdAtMs, change.start);
      if (change.kind === "gone") this.gone(change.key);
    }
  }

  private gone(key: string): void {
    const { bucket, name } = splitKey(key);
    this.lists.request((all) => {
      for (const record of all) {
        const path = subscriptionPathOf(record.scope, bucket, name);
        if (path === null || !record.state.links.some((l) => l.path === path)) continue;
        void this.change(record.scope, record.state.id, async (current) => {
          const state = wake.streamGone(current.state, path);
          return { record: state === current.state ? current : { ...current, state }, answer: { status: 200, body: null } };
        }).catch(() => undefined);
      }
    });
  }

  /** A stream was created with a body: its first messages wake subscriptions as an append's do. */
  created(bucket: string, name: string): void {
    if (!this.closed) this.appended(bucket, name, this.now(), 0);
  }

  private appended(bucket: string, name: string, streamCreatedAtMs: number, start: number): void {
    this.lists.request((all) => this.wakeAll(all, bucket, name, streamCreatedAtMs, start));
  }

  private wakeAll(all: readonly StoredSubscription[], bucket: string, name: string, streamCreatedAtMs: number, start: number): void {
    for (const record of all) {
      const path = subscriptionPathOf(record.scope, bucket, name);
      if (path === null) continue;
      const { scope, state } = record;
      if (state.config.pattern === null && !state.links.some((l) => l.path === path)) continue;
      void this.change(scope, state.id, async (current) => {
        // A stream older than the subscription is followed from where this append began.
        const linkFrom = streamCreatedAtMs < current.createdAtMs ? start : -1;
        const tails = await this.tails(scope, [...linkedPaths(current), path]);
        const woken = wake.onAppend(current.state, path, tails, newWakeId(), this.now(), linkFrom);
        const delivery = woken.opened ? { ...current.delivery, attempts: 0, nextAttemptAtMs: null } : current.delivery;
        return { record: { ...current, state: woken.state, delivery }, answer: { status: 200, body: null }, opened: woken.opened };
      }).catch((error) => this.options.log.warn("a subscription could not take an append", { subscription: state.id, error: String(error) }));
    }
  }

  /** After a restart: leases run on, and a webhook wake outstanding is sent again (its generation unchanged). */
  private resume(record: StoredSubscription): void {
    this.armLease(record);
    if (record.state.wake !== null && record.state.config.type === "webhook") this.send(record.scope, record.state.id, record.state.generation);
    if (record.state.wake === null) void this.change(record.scope, record.state.id, (r) => this.reopen(r));
  }

  /** Opens the next wake when work is pending and none is out (a lease ran out, or a restart). */
  private async reopen(record: StoredSubscription): Promise<Changed> {
    const expired = wake.expireLease(record.state, this.now());
    if (expired.wake !== null) return { record, answer: { status: 200, body: null } };
    if (record.state.config.type === "webhook" && record.delivery.attempts >= this.maxAttempts) return { record: { ...record, state: expired }, answer: { status: 200, body: null } };
    const tails = await this.tails(record.scope, linkedPaths(record));
    const next = wake.finishWake(expired, tails, newWakeId(), this.now());
    return { record: { ...record, state: next.state }, answer: { status: 200, body: null }, opened: next.next };
  }

  private armLease(record: StoredSubscription): void {
    const key = keyOf(record.scope, record.state.id);
    const existing = this.leaseTimers.get(key);
    if (existing) clearTimeout(existing);
    this.leaseTimers.delete(key);
    const until = record.state.wake?.leaseUntilMs;
    if (until == null || this.closed) return;
    const timer = setTimeout(() => {
      this.leaseTimers.delete(key);
      void this.change(record.scope, record.state.id, (r) => this.reopen(r)).catch(() => undefined);
    }, Math.max(0, until - this.now()));
    this.leaseTimers.set(key, timer);
  }

  /** A wake just opened: a webhook's is POSTed, a pull-wake's appended to its wake stream. */
  private opened(record: StoredSubscription): void {
    const { state } = record;
    if (state.config.type === "webhook") return this.send(record.scope, state.id, state.generation);
    void this.announce(record).catch((error) => this.options.log.warn("a pull-wake event could not be written", { subscription: state.id, error: String(error) }));
  }

  private async announce(record: StoredSubscription): Promise<void> {
    const { state } = record;
    const key = subscriptionStreamKey(record.scope, state.config.wakeStream!);
    if (key === null || state.wake === null) return;
    const pending = Object.entries(state.wake.snapshot).find(([path, tail]) => tail > (state.links.find((l) => l.path === path)?.ackedOffset ?? -1));
    const event = { type: "wake", subscription_id: state.id, stream: pending?.[0] ?? null, generation: state.generation, wake_id: state.wake.id, ts: this.now() };
    const messages = jsonMessages(new TextEncoder().encode(JSON.stringify(event)), false);
    if (!messages.ok) return;
    const outcome = await this.store.append(key, { contentType: "application/json", messages: messages.value, close: false, streamSeq: null, producer: null, incarnation: null });
    if (isProtocolError(outcome)) this.options.log.warn("a pull-wake event was refused by its wake stream", { subscription: state.id, code: outcome.code });
  }

  // ---- webhook delivery

  private send(scope: string, id: string, generation: number): void {
    void this.deliver(scope, id, generation).catch((error) => this.options.log.warn("a webhook delivery failed", { subscription: id, error: String(error) }));
  }

  private async deliver(scope: string, id: string, generation: number): Promise<void> {
    const record = await this.subs.get(scope, id);
    if (this.closed || !record || record.state.generation !== generation || record.state.wake === null) return;
    const { state } = record;
    const tails = await this.tails(scope, linkedPaths(record));
    const body = JSON.stringify({
      subscription_id: id,
      wake_id: state.wake!.id,
      generation,
      streams: this.streamInfos(state, tails),
      callback_url: this.actionUrl(record, "callback"),
      callback_token: this.signing.token(subjectOf(scope, id), generation),
    });
    const url = state.config.webhookUrl!;
    const outcome = isTestReceiverUrl(url, scope, record.origin) ? this.handOver(scope, body) : await this.post(url, body, Math.min(this.timeoutMs, state.config.leaseTtlMs));
    await this.change(scope, id, async (current) => {
      if (current.state.generation !== generation || current.state.wake === null) return { record: current, answer: { status: 200, body: null } };
      if (outcome.kind === "failed") {
        const attempts = current.delivery.attempts + 1;
        const delay = Math.min(this.retryDelayMs * 2 ** (attempts - 1), this.maxRetryDelayMs);
        const nextAttemptAtMs = attempts < this.maxAttempts ? this.now() + delay : null;
        if (nextAttemptAtMs !== null) this.retryLater(scope, id, delay);
        return { record: { ...current, delivery: { ...current.delivery, lastError: outcome.error, attempts, nextAttemptAtMs } }, answer: { status: 200, body: null } };
      }
      const delivery = { lastDeliveryAtMs: this.now(), lastError: null, attempts: 0, nextAttemptAtMs: null };
      if (!outcome.done) return { record: { ...current, delivery }, answer: { status: 200, body: null } };
      // `done` in the answer acks what the wake showed, once: the generation is checked above, under the lock.
      const now = await this.tails(scope, linkedPaths(current));
      const finished = wake.finishWake(wake.autoAck(current.state), now, newWakeId(), this.now());
      return { record: { ...current, state: finished.state, delivery }, answer: { status: 200, body: null }, opened: finished.next };
    });
  }

  private retryLater(scope: string, id: string, delayMs: number): void {
    const key = keyOf(scope, id);
    const old = this.retryTimers.get(key);
    if (old) clearTimeout(old);
    const timer = setTimeout(() => {
      this.retryTimers.delete(key);
      void this.subs.get(scope, id).then((record) => {
        if (!record) return;
        if (record.state.wake !== null && wake.checkFence(record.state, { generation: record.state.generation, wakeId: record.state.wake.id }, this.now()).ok) this.send(scope, id, record.state.generation);
        else void this.change(scope, id, (r) => this.reopen(r)).catch(() => undefined);
      });
    }, delayMs);
    this.retryTimers.set(key, timer);
  }

  /** A wake to the console's test receiver: signed as any wake, taken in-process, answered `done`. */
  private handOver(scope: string, body: string): { kind: "answered"; done: boolean } {
    this.testReceiver.take(scope, body, this.signing.signature(body, this.now()));
    return { kind: "answered", done: true };
  }

  private async post(url: string, body: string, timeoutMs: number): Promise<{ kind: "answered"; done: boolean } | { kind: "failed"; error: string }> {
    const refused = await refusalOf(url, this.options.allowHosts, this.resolve, "refuse");
    if (refused !== null) return { kind: "failed", error: `refused: ${refused}` };
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "webhook-signature": this.signing.signature(body, this.now()) },
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await leadingText(res, MAX_ANSWER_BYTES);
      if (!res.ok) return { kind: "failed", error: `HTTP ${res.status}` };
      let done = false;
      try {
        done = (JSON.parse(text) as { done?: unknown } | null)?.done === true;
      } catch {
        done = false;
      }
      return { kind: "answered", done };
    } catch (error) {
      return { kind: "failed", error: error instanceof Error && error.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : String(error instanceof Error ? error.message : error) };
    }
  }

  // ---- one subscription at a time

  /**
   * Reads the subscription, decides, and saves what changed if nobody else saved it meanwhile (a
   * server sharing the database); if someone did, decides again on what they saved. Only the
   * server whose save opened a wake sends it.
   */
  private change(scope: string, id: string, run: (record: StoredSubscription) => Promise<Changed | ProtocolError>): Promise<Answer> {
    return this.locked(scope, id, async () => {
      for (let attempt = 1; ; attempt++) {
        const record = await this.subs.get(scope, id);
        if (!record) return notFound(id);
        const changed = await run(record);
        if (isProtocolError(changed)) return changed;
        if (changed.record === record) return changed.answer;
        const next = { ...changed.record, version: record.version + 1 };
        if (!(await this.subs.save(next))) {
          if (attempt >= MAX_SAVE_ATTEMPTS) throw new Error(`subscription ${id} changed under every one of ${attempt} attempts`);
          continue;
        }
        this.armLease(next);
        if (changed.opened) this.opened(next);
        return changed.answer;
      }
    });
  }

  private locked<T>(scope: string, id: string, run: () => Promise<T>): Promise<T> {
    const key = keyOf(scope, id);
    const before = this.locks.get(key) ?? Promise.resolve();
    const result = before.then(run, run);
    const settled = result.then(
      () => undefined,
      () => undefined,
    );
    this.locks.set(key, settled);
    void settled.then(() => {
      if (this.locks.get(key) === settled) this.locks.delete(key);
    });
    return result;
  }

  private clearTimers(key: string): void {
    for (const timers of [this.leaseTimers, this.retryTimers]) {
      const t = timers.get(key);
      if (t) clearTimeout(t);
      timers.delete(key);
    }
  }

  private async tails(scope: string, paths: readonly string[]): Promise<wake.Tails> {
    const found = new Map<string, number>();
    await Promise.all(
      [...new Set(paths)].map(async (path) => {
        const key = subscriptionStreamKey(scope, path);
        const state = key === null ? undefined : await this.store.get(key);
        found.set(path, state && !state.softDeleted ? state.tail : 0);
      }),
    );
    return (path) => found.get(path) ?? 0;
  }

  private streamInfos(state: wake.SubscriptionState, tails: wake.Tails): Record<string, unknown>[] {
    return state.links.map((l) => ({
      path: l.path,
      link_type: l.explicit ? "explicit" : "glob",
      acked_offset: showOffset(l.ackedOffset),
      tail_offset: showOffset(tails(l.path)),
      has_pending: tails(l.path) > l.ackedOffset,
    }));
  }

  private view(record: StoredSubscription): SubscriptionView {
    return subscriptionView(record, { kid: this.signing.kid, jwksUrl: `${record.origin}${prefixOf(record.scope)}/__ds/jwks.json` });
  }

  private actionUrl(record: StoredSubscription, action: string): string {
    return `${record.origin}${prefixOf(record.scope)}/__ds/subscriptions/${encodeURIComponent(record.state.id)}/${action}`;
  }
}

interface Changed {
  record: StoredSubscription;
  answer: { status: number; body: Record<string, unknown> | null };
  /** A new wake opened: it is sent once the record is saved. */
  opened?: boolean;
}

/** Of a receiver's answer only this much is read: `{"done": true}` is short, and a receiver must not fill memory. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The first `limit` bytes of a body as text; the rest is not read. */
async function leadingText(res: Response, limit: number): Promise<string> {
  if (res.body === null) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  if (size >= limit) await reader.cancel();
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, limit));
}

/** Where a scope's reserved API lives. */
export function prefixOf(scope: string): string {
  return scope === V1_SCOPE ? V1_PREFIX.slice(0, -1) : `/${scope}`;
}

const subjectOf = (scope: string, id: string) => `subscription:${scope}/${id}`;
const linkedPaths = (record: StoredSubscription) => record.state.links.map((l) => l.path);
const notFound = (id: string) => protocolError("SUBSCRIPTION_NOT_FOUND", `no subscription ${id}`);

function refusal(r: wake.Refusal): ProtocolError {
  switch (r.code) {
    case "ALREADY_CLAIMED":
      return protocolError("ALREADY_CLAIMED", r.message, { holder: { worker: r.holder, generation: r.generation } });
    case "FENCED":
      return protocolError("FENCED", r.message);
    case "NO_PENDING_WORK":
      return protocolError("NO_PENDING_WORK", r.message);
    case "INVALID_OFFSET":
      return protocolError("INVALID_OFFSET", r.message);
  }
}
