// Requests, reads and fingerprints for the contract suite, written only against the Store
// interface. Every store call is awaited, synchronous or not today, so the suite stays valid when
// the interface becomes asynchronous.

import { expect, test } from "bun:test";
import type { AppendRequest } from "../../protocol/append";
import type { CreateRequest } from "../../protocol/create";
import { jsonMessages } from "../../protocol/json-body";
import { isProtocolError, type ErrorCode } from "../../protocol/errors";
import type { ResourceTarget } from "../../protocol/retention";
import { snapshotDigest } from "../../protocol/snapshot";
import { createRequest } from "../../protocol/testing-state";
import type { StreamState } from "../../protocol/state";
import type { Store } from "../store";
import type { Engine, EngineFactory, EngineOptions } from "./engine";

/** Where every test's clock starts; tests move it on by hand. */
export const T0 = 1_700_000_000_000;
export const HOUR = 3_600_000;

export interface Ctx {
  engine: Engine;
  clock: { now: number };
}

/**
 * Far above what any test here needs on a quiet machine (under a second), so a machine shared with
 * other work cannot time one out: bun's default of 5 s was reached by the property test under load.
 */
export const TIMEOUT_MS = 60_000;

/** A test on a fresh engine, disposed of however the test ends. */
export function contract(factory: EngineFactory, title: string, run: (ctx: Ctx) => Promise<void>, options: Omit<EngineOptions, "now"> = {}): void {
  test(title, async () => {
    const clock = { now: T0 };
    const engine = await factory.make({ now: () => clock.now, ...options });
    try {
      await run({ engine, clock });
    } finally {
      await engine.dispose();
    }
  }, TIMEOUT_MS);
}

export const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

const split = (key: string) => {
  const slash = key.indexOf("/");
  return { bucket: key.slice(0, slash), name: key.slice(slash + 1) };
};

export function createReq(key: string, overrides: Partial<CreateRequest> = {}): CreateRequest {
  return createRequest({ ...split(key), contentType: "text/plain", ...overrides });
}

/** An append of the given messages (none: a close-only request when `close` is set). */
export function appendReq(messages: string[], overrides: Partial<AppendRequest> = {}): AppendRequest {
  return {
    contentType: messages.length === 0 ? null : "text/plain",
    messages: messages.map(enc),
    close: false,
    streamSeq: null,
    producer: null,
    incarnation: null,
    ...overrides,
  };
}

/** An append to a JSON stream of the body's values, stored as the HTTP layer stores them. */
export function jsonAppend(body: string, overrides: Partial<AppendRequest> = {}): AppendRequest {
  const parsed = jsonMessages(enc(body), false);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return { ...appendReq([]), contentType: "application/json", messages: parsed.value, ...overrides };
}

/** Every message from the floor on, parsed: a JSON stream's values. */
export async function valuesOf(store: Store, key: string): Promise<unknown[]> {
  return (await messagesOf(store, key)).map((m) => JSON.parse(m));
}

export const producer = (id: string, epoch: number, seq: number) => ({ id, epoch, seq });

/** Creates the stream and returns its state, failing the test on anything but a create. */
export async function created(store: Store, key: string, overrides: Partial<CreateRequest> = {}): Promise<StreamState> {
  const outcome = await store.create(key, createReq(key, overrides));
  if (outcome.kind !== "created") throw new Error(`create ${key}: ${describe(outcome)}`);
  return outcome.state;
}

/** The state of a stream that must exist. */
export async function stateOf(store: Store, key: string): Promise<StreamState> {
  const state = await store.get(key);
  if (state === undefined) throw new Error(`${key} does not exist`);
  return state;
}

/** An outcome as a short word: its error code, or its kind. */
export function describe(outcome: { kind: string }): string {
  return isProtocolError(outcome) ? outcome.code : outcome.kind;
}

export function expectError(outcome: { kind: string } | string, code: ErrorCode) {
  expect(typeof outcome === "string" ? outcome : describe(outcome)).toBe(code);
  return outcome as { kind: "error"; code: ErrorCode; context: Record<string, unknown> };
}

/** Appends that must be accepted, one after the other. */
export async function appendAll(store: Store, key: string, ...messages: string[]): Promise<void> {
  for (const m of messages) {
    const d = await store.append(key, appendReq([m]));
    if (d.kind !== "accepted") throw new Error(`append to ${key}: ${describe(d)}`);
  }
}

/** Every whole message readable from `from` (the floor, if not given) to the tail. */
export async function messagesOf(store: Store, key: string, from?: number): Promise<string[]> {
  const state = await stateOf(store, key);
  const out: string[] = [];
  let at = from ?? state.retained;
  while (at < state.tail) {
    const slice = await store.readRange(state, at, 1 << 20, true);
    if (slice.end <= at) throw new Error(`read of ${key} at ${at} made no progress`);
    for (const c of slice.chunks) out.push(dec(c));
    at = slice.end;
  }
  return out;
}

/** The stream's bytes from `from` (the floor, if not given) to the tail, read a few at a time. */
export async function bytesOf(store: Store, key: string, from?: number, step = 7): Promise<string> {
  const state = await stateOf(store, key);
  let out = "";
  let at = from ?? state.retained;
  while (at < state.tail) {
    const slice = await store.readRange(state, at, step, false);
    if (slice.end <= at) throw new Error(`read of ${key} at ${at} made no progress`);
    for (const c of slice.chunks) out += dec(c);
    at = slice.end;
  }
  return out;
}

/**
 * Everything a write could change about the stream at `key`: its state (guards, closure, lifetime,
 * floor, snapshot, fork links), the producers it remembers, its attributes and every retained
 * byte. Null when there is no stream there. Two equal fingerprints mean nothing was committed.
 */
export async function fingerprint(store: Store, key: string): Promise<string | null> {
  const state = await store.get(key);
  if (state === undefined) return null;
  const { producers: _table, ...fields } = state;
  const producers = (await store.producers(state)).sort(([a], [b]) => (a < b ? -1 : 1));
  const attrs = state.softDeleted ? null : await store.attrs(state);
  const data = state.softDeleted ? "" : await bytesOf(store, key, state.retained, 1 << 20);
  return canonical({ fields, producers, attrs, data });
}

export interface SnapshotOptions {
  contentType?: string;
  match?: string | null;
  incarnation?: string | null;
}

/** Uploads `body` and publishes it at `offset`, as the snapshot route does. */
export async function publish(store: Store, key: string, offset: number, body: string, options: SnapshotOptions = {}) {
  const contentType = options.contentType ?? "application/octet-stream";
  const digest = await digestOf(contentType, body);
  const upload = await store.stageSnapshot();
  await upload.write(enc(body));
  await upload.end();
  const target: ResourceTarget = { kind: "offset", offset };
  return store.publishSnapshot(key, upload, { target, contentType, match: options.match ?? null, incarnation: options.incarnation ?? null }, digest, false);
}

export async function digestOf(contentType: string, body: string): Promise<string> {
  const d = await snapshotDigest(contentType);
  d.update(enc(body));
  return d.digest();
}

/** The bytes of the stream's visible snapshot. */
export async function snapshotBytes(store: Store, key: string): Promise<string | null> {
  const state = await stateOf(store, key);
  if (state.snapshot === null) return null;
  const reader = await store.openSnapshot(state.snapshot);
  try {
    let out = "";
    for (let i = 0; i < reader.chunks; i++) out += dec(await reader.chunk(i));
    return out;
  } finally {
    await reader.release();
  }
}

export const retain = (store: Store, key: string, offset: number, incarnation: string | null = null) =>
  store.advanceRetention(key, { kind: "offset", offset }, incarnation);

/** JSON with every object's keys sorted, so equal values give equal text whatever built them. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}
