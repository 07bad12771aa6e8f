// The few HTTP pieces the recipes share: header names, the zero-padded Stream-Seq, a typed
// error for unexpected answers, and "read to the tail". Plain `fetch`, no client library, so
// each recipe shows exactly which headers go over the wire. Copy this file with the recipe.

export const HEADER = {
  contentType: "Content-Type",
  nextOffset: "Stream-Next-Offset",
  upToDate: "Stream-Up-To-Date",
  seq: "Stream-Seq",
  lastSeq: "Stream-Last-Seq",
  incarnation: "Stream-Incarnation",
  producerId: "Producer-Id",
  producerEpoch: "Producer-Epoch",
  producerSeq: "Producer-Seq",
  expectedSeq: "Producer-Expected-Seq",
  snapshotOffset: "Stream-Snapshot-Offset",
  snapshotDigest: "Stream-Snapshot-Digest",
  snapshotMatch: "Stream-Snapshot-Match",
  earliestOffset: "Stream-Earliest-Offset",
} as const;

/** The read position of a stream's first byte. */
export const STREAM_START = "-1";

/**
 * Ursula v0.9.0, Conditional Writes, §How Stream-Seq is checked: the comparison is bytewise, not
  * numeric ("10" sorts before
 * "9"), so use fixed-width values such as a counter zero-padded to 20 digits. 20 digits hold any
 * JavaScript safe integer, and the value stays far below the 256-byte limit.
 */
export const SEQ_WIDTH = 20;

export function padSeq(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`Stream-Seq counter must be a non-negative safe integer, got ${n}`);
  return String(n).padStart(SEQ_WIDTH, "0");
}

/** The inverse of padSeq, for values this code wrote (Stream-Last-Seq echoes one of them). */
export function parseSeq(value: string): number {
  if (!/^[0-9]{1,20}$/.test(value)) throw new Error(`not a zero-padded counter: ${JSON.stringify(value)}`);
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new Error(`counter out of range: ${value}`);
  return n;
}

/** Any answer a recipe has no rule for. It keeps the status and headers for the caller. */
export class UnexpectedResponse extends Error {
  constructor(
    readonly what: string,
    readonly status: number,
    readonly headers: Headers,
    readonly body: string,
  ) {
    super(`${what}: HTTP ${status} ${body.slice(0, 200)}`);
    this.name = "UnexpectedResponse";
  }

  static async from(what: string, res: Response): Promise<UnexpectedResponse> {
    return new UnexpectedResponse(what, res.status, res.headers, await res.text().catch(() => ""));
  }
}

export interface TailRead {
  /** Every event read, oldest first: the elements of each JSON array body, concatenated. */
  events: unknown[];
  /** Where the next read continues: the Stream-Next-Offset of the last response. */
  nextOffset: string;
  /** How many GETs it took. */
  requests: number;
  /** The Stream-Incarnation of the last response. */
  incarnation: string | null;
}

export interface ReadOptions {
  fetch?: typeof fetch;
  /** Extra request headers, e.g. Stream-Incarnation. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Conditional Writes, §Prefix-count compare-and-set, step 3: "Read with consistency=leader,
  * continuing from Stream-Next-Offset,
 * until a response carries Stream-Up-To-Date: true." Reads an application/json stream in its
 * default array representation, where each body is a JSON array holding whole events.
 *
 * Only Stream-Up-To-Date ends the loop. An empty body does not, and neither does a short one:
 * "the read must end at the tail" (a read cut short can stop inside a commit).
 */
export async function readToTail(streamUrl: string, from: string, options: ReadOptions = {}): Promise<TailRead> {
  const doFetch = options.fetch ?? fetch;
  const events: unknown[] = [];
  let offset = from;
  let requests = 0;
  let incarnation: string | null = null;
  for (;;) {
    const url = `${streamUrl}?offset=${encodeURIComponent(offset)}&consistency=leader`;
    const res = await doFetch(url, { headers: options.headers, signal: options.signal });
    requests++;
    if (res.status !== 200) throw await UnexpectedResponse.from(`GET ${url}`, res);
    const body: unknown = JSON.parse(await res.text());
    if (!Array.isArray(body)) throw new Error(`GET ${url}: expected a JSON array body (is the stream application/json?)`);
    events.push(...body);
    incarnation = res.headers.get(HEADER.incarnation);
    const next = res.headers.get(HEADER.nextOffset);
    if (next === null) throw new Error(`GET ${url}: no Stream-Next-Offset`);
    if (res.headers.get(HEADER.upToDate) === "true") return { events, nextOffset: next, requests, incarnation };
    if (next === offset) throw new Error(`GET ${url}: not up to date, yet Stream-Next-Offset did not move`);
    offset = next;
  }
}
