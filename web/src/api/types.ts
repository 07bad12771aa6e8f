// The request/exchange data types shared by the whole console. An Exchange is the complete
// record of one protocol request: what was sent, what came back, how long it took. The UI,
// the timeline and the copy-as-curl/fetch snippets are all built from these plain objects,
// so what is shown can never drift from what was sent (design.md, web/).

export type Method = "GET" | "HEAD" | "POST" | "PUT" | "DELETE";

/** Ordered header list: the order they were set is the order shown and copied. */
export type HeaderList = [name: string, value: string][];

export interface ProtocolRequest {
  method: Method;
  /** Path plus query, e.g. "/demo/run-42?offset=-1". Always starts with "/". */
  path: string;
  headers: HeaderList;
  /** Text body. Absent means no body at all (not an empty one). */
  body?: string;
  /**
   * An append-batch body instead of `body`: each frame is sent as a 4-byte big-endian length and
   * then its UTF-8 bytes (api/frames.ts). Kept as the frames, so the timeline shows what was sent.
   */
  frames?: string[];
}

export interface ProtocolResponse {
  status: number;
  statusText: string;
  /** As received; names are lowercase (fetch normalises them). */
  headers: HeaderList;
  bodyText: string;
  /** Raw bytes, kept only when the caller asked for them (binary reads). */
  bodyBytes?: Uint8Array;
}

export interface Exchange {
  id: string;
  origin: string;
  request: ProtocolRequest;
  /** Wall-clock start (ms since epoch) and the time until the body was fully read. */
  startedAt: number;
  durationMs: number;
  response?: ProtocolResponse;
  /** Set when no HTTP response arrived at all (connection refused, abort…). */
  networkError?: string;
  /** Set when the console stopped reading a body that does not end by itself (SSE). */
  bodyCut?: string;
  /** The console added its bearer token (state/auth.ts); the token itself is never kept here. */
  bearer?: boolean;
  /** The browser followed a redirect (a 307 to the latest snapshot) to this URL; `response` is the target's. */
  redirectedTo?: string;
  /** The `error.code` of a JSON error body, when there is one. */
  errorCode?: string;
  errorMessage?: string;
}
