// A subscription's wake cycle as pure rules over its state (DS §6–§7): an append to a linked stream
// opens a wake (a new generation, a snapshot of the linked streams' tails); a webhook receiver or a
// pull-wake worker holds it under a lease scoped to the subscription, acks offsets and finishes
// it; a callback, ack or release naming any other generation or wake is fenced. Every rule returns
// a tagged result and a new state; the caller stores it, delivers, and keeps the clock.

import type { SubscriptionConfig } from "./subscription-config";
import { globMatches } from "./subscription-glob";

/** A stream the subscription follows, and how far it has been acked (-1: nothing yet). */
export interface StreamLink {
  path: string;
  explicit: boolean;
  glob: boolean;
  ackedOffset: number;
}

/** The wake outstanding, if any: its generation and id, who holds it and until when. */
export interface Wake {
  id: string;
  /** The tails of the linked streams when the wake opened: what a `done` acks. */
  snapshot: Record<string, number>;
  /** A pull-wake worker's name once claimed; a webhook wake is held by its receiver (null). */
  holder: string | null;
  leaseUntilMs: number | null;
  /** When it opened; absent on wakes kept before this was recorded. */
  openedAtMs?: number;
}

export interface SubscriptionState {
  id: string;
  config: SubscriptionConfig;
  links: StreamLink[];
  /** Bumped by every wake opened; never goes back, so an old generation stays fenced. */
  generation: number;
  wake: Wake | null;
}

/** A stream's tail as a byte position; a stream that does not exist has tail 0. */
export type Tails = (path: string) => number;

export interface AckInput {
  stream: string;
  offset: number;
}

export interface WakeRef {
  generation: unknown;
  wakeId: unknown;
}

export type Refusal =
  | { code: "FENCED"; message: string }
  | { code: "INVALID_OFFSET"; message: string }
  | { code: "ALREADY_CLAIMED"; message: string; holder: string; generation: number }
  | { code: "NO_PENDING_WORK"; message: string };

export type Decided = { ok: true; state: SubscriptionState } | { ok: false; refusal: Refusal };

/** A new subscription: its explicit streams and the existing streams its pattern takes in, all acked up to their tails. */
export function newSubscription(id: string, config: SubscriptionConfig, existing: readonly string[], tails: Tails): SubscriptionState {
  let state: SubscriptionState = { id, config, links: [], generation: 0, wake: null };
  for (const path of config.streams) state = link(state, path, "explicit", tails(path));
  if (config.pattern !== null) for (const path of existing) if (globMatches(config.pattern, path)) state = link(state, path, "glob", tails(path));
  return state;
}

/** Follow a stream (`explicit` or by the pattern), starting at `acked`; a stream already followed keeps its cursor. */
export function link(state: SubscriptionState, path: string, how: "explicit" | "glob", acked: number): SubscriptionState {
  const at = state.links.findIndex((l) => l.path === path);
  if (at >= 0) {
    const links = [...state.links];
    links[at] = { ...links[at]!, [how]: true };
    return { ...state, links };
  }
  return { ...state, links: [...state.links, { path, explicit: how === "explicit", glob: how === "glob", ackedOffset: acked }] };
}

/** Stop following a stream explicitly; it stays while the pattern still takes it in. */
export function unlinkExplicit(state: SubscriptionState, path: string): SubscriptionState {
  const links = state.links.flatMap((l) => (l.path !== path ? [l] : l.glob ? [{ ...l, explicit: false }] : []));
  return { ...state, links };
}

/**
 * A followed stream is gone (deleted or expired): a stream created again at its path starts from
 * its beginning, so its acked offset starts over too; otherwise the new stream's first messages,
 * below the old acked offset, would never wake anyone.
 */
export function streamGone(state: SubscriptionState, path: string): SubscriptionState {
  if (!state.links.some((l) => l.path === path && l.ackedOffset !== -1)) return state;
  return { ...state, links: state.links.map((l) => (l.path === path ? { ...l, ackedOffset: -1 } : l)) };
}

export function pendingPaths(state: SubscriptionState, tails: Tails): string[] {
  return state.links.filter((l) => tails(l.path) > l.ackedOffset).map((l) => l.path);
}

/**
 * An append to `path` became durable: the pattern takes a new stream in from `linkFrom` (its start,
 * -1, unless the caller knows the stream predates the subscription), and a wake opens when the
 * subscription follows the stream, has work and has no wake outstanding within its lease.
 */
export function onAppend(state: SubscriptionState, path: string, tails: Tails, wakeId: string, nowMs: number, linkFrom = -1): { state: SubscriptionState; opened: boolean } {
  // Its own wake stream is never followed: each wake event would wake the subscription again.
  if (path === state.config.wakeStream) return { state, opened: false };
  // A wake whose lease ran out is over even if no timer said so (its server may have died).
  let next = expireLease(state, nowMs);
  if (state.config.pattern !== null && globMatches(state.config.pattern, path)) next = link(next, path, "glob", linkFrom);
  if (!next.links.some((l) => l.path === path) || next.wake !== null) return { state: next, opened: false };
  if (pendingPaths(next, tails).length === 0) return { state: next, opened: false };
  return { state: openWake(next, tails, wakeId, nowMs), opened: true };
}

/** A new generation. A webhook wake is leased to its receiver at once; a pull-wake wake waits for a claim. */
export function openWake(state: SubscriptionState, tails: Tails, wakeId: string, nowMs: number): SubscriptionState {
  const snapshot = Object.fromEntries(state.links.map((l) => [l.path, tails(l.path)]));
  const leaseUntilMs = state.config.type === "webhook" ? nowMs + state.config.leaseTtlMs : null;
  return { ...state, generation: state.generation + 1, wake: { id: wakeId, snapshot, holder: null, leaseUntilMs, openedAtMs: nowMs } };
}

/** A pull-wake claim: one holder at a time, and only when there is work (opening a wake if none is out). */
export function claim(state: SubscriptionState, worker: string, tails: Tails, wakeId: string, nowMs: number): Decided {
  const current = expireLease(state, nowMs);
  if (current.wake?.holder != null) {
    const { holder } = current.wake;
    return refuse({ code: "ALREADY_CLAIMED", message: `the subscription is claimed by ${holder}`, holder, generation: current.generation });
  }
  if (pendingPaths(current, tails).length === 0) return refuse({ code: "NO_PENDING_WORK", message: "the subscription has no pending work" });
  const open = current.wake ?? openWake(current, tails, wakeId, nowMs).wake!;
  const generation = current.wake === null ? current.generation + 1 : current.generation;
  return { ok: true, state: { ...current, generation, wake: { ...open, holder: worker, leaseUntilMs: nowMs + current.config.leaseTtlMs } } };
}

/** A callback, ack or release must name the outstanding wake and its generation, within its lease. */
export function checkFence(state: SubscriptionState, ref: WakeRef, nowMs: number): Decided {
  const wake = state.wake;
  if (wake === null || ref.generation !== state.generation || ref.wakeId !== wake.id) return refuse({ code: "FENCED", message: "the wake generation is stale" });
  if (wake.leaseUntilMs !== null && nowMs >= wake.leaseUntilMs) return refuse({ code: "FENCED", message: "the wake's lease has run out" });
  return { ok: true, state };
}

/** Move acked cursors forward, all or none: an unknown stream, a regression or an offset past the tail refuses them all. */
export function applyAcks(state: SubscriptionState, acks: readonly AckInput[], tails: Tails): Decided {
  const links = [...state.links];
  for (const ack of acks) {
    const at = links.findIndex((l) => l.path === ack.stream);
    if (at < 0) return refuse({ code: "INVALID_OFFSET", message: `the subscription does not follow ${ack.stream}` });
    if (!Number.isInteger(ack.offset) || ack.offset < 0) return refuse({ code: "INVALID_OFFSET", message: "an ack offset names a position in the stream" });
    if (ack.offset < links[at]!.ackedOffset) return refuse({ code: "INVALID_OFFSET", message: `the ack for ${ack.stream} goes back past its acked offset` });
    if (ack.offset > tails(ack.stream)) return refuse({ code: "INVALID_OFFSET", message: `the ack for ${ack.stream} is beyond its tail` });
    links[at] = { ...links[at]!, ackedOffset: ack.offset };
  }
  return { ok: true, state: { ...state, links } };
}

/** Extend the holder's lease after a fenced-in ack that is not yet `done`. */
export function extendLease(state: SubscriptionState, nowMs: number): SubscriptionState {
  return state.wake === null ? state : { ...state, wake: { ...state.wake, leaseUntilMs: nowMs + state.config.leaseTtlMs } };
}

/** A receiver answered `done`: everything the wake's snapshot showed counts as acked. */
export function autoAck(state: SubscriptionState): SubscriptionState {
  const snapshot = state.wake?.snapshot ?? {};
  return { ...state, links: state.links.map((l) => (snapshot[l.path] !== undefined && snapshot[l.path]! > l.ackedOffset ? { ...l, ackedOffset: snapshot[l.path]! } : l)) };
}

/**
 * The wake ends (done, release or an expired lease); if work is still pending, the next wake opens
 * at once with a new generation. `next` says whether it did.
 */
export function finishWake(state: SubscriptionState, tails: Tails, wakeId: string, nowMs: number): { state: SubscriptionState; next: boolean } {
  const ended = { ...state, wake: null };
  if (pendingPaths(ended, tails).length === 0) return { state: ended, next: false };
  return { state: openWake(ended, tails, wakeId, nowMs), next: true };
}

/** A lease that has run out frees the wake; its generation stays spent. */
export function expireLease(state: SubscriptionState, nowMs: number): SubscriptionState {
  const until = state.wake?.leaseUntilMs;
  return until != null && nowMs >= until ? { ...state, wake: null } : state;
}

const refuse = (refusal: Refusal): Decided => ({ ok: false, refusal });
