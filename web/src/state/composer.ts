// The request composer: a form that can express any protocol request, to a stream or any of its
// sub-resources (endpoints.ts), the exchange it last produced, and the retry-from-409 flow. The
// form is plain data; `buildRequest` turns it into the request object that is sent and that the
// curl/fetch snippets are built from. It never crosses an incarnation by itself: an answer that
// names another incarnation of the target than the token it keeps (a 412, or an unguarded
// answer) marks the stream as recreated, and the old token stays until `startOver`.
import { batch, signal } from "@preact/signals";
import type { Exchange, HeaderList, Method, ProtocolRequest } from "../api/types";
import { getHeader } from "../api/headers";
import type { Transport } from "./transport";
import { streamPathOf } from "../api/paths";
import { retryEligible, retryRequest, type RetryPlan } from "./retry";
import { ENDPOINTS, endpointSuffix, type Endpoint, type Guard } from "./endpoints";
import { padSeq } from "../api/streamSeq";

export interface ComposerForm {
  method: Method;
  target: string;
  endpoint: Endpoint;
  /** The {offset} of snapshot/{offset} and retention/{offset}. */
  offset: string;
  /** An append-batch body: one append per frame. */
  frames: string[];
  preferMinimal: boolean;
  snapshotMatchOn: boolean;
  snapshotMatch: string;
  query: string;
  contentType: string;
  sendContentType: boolean;
  body: string;
  seqOn: boolean;
  seq: string;
  producerOn: boolean;
  producerId: string;
  producerEpoch: string;
  producerSeq: string;
  autoIncrement: boolean;
  incarnationOn: boolean;
  incarnation: string;
  closedOn: boolean;
  ttlOn: boolean;
  ttlMode: "ttl" | "expires";
  ttl: string;
  expiresAt: string;
  extraHeaders: string;
}

export const DEFAULT_FORM: ComposerForm = {
  method: "POST",
  target: "",
  endpoint: "stream",
  offset: "",
  frames: ['{"type":"step","n":1}', '[{"type":"step","n":2},{"type":"step","n":3}]'],
  preferMinimal: false,
  snapshotMatchOn: false,
  snapshotMatch: "",
  query: "offset=-1",
  contentType: "application/json",
  sendContentType: true,
  body: '[{"type":"step","n":1}]',
  seqOn: false,
  seq: "00000000000000000000",
  producerOn: false,
  producerId: "console",
  producerEpoch: "0",
  producerSeq: "0",
  autoIncrement: true,
  incarnationOn: false,
  incarnation: "",
  closedOn: false,
  ttlOn: false,
  ttlMode: "ttl",
  ttl: "3600",
  expiresAt: "",
  extraHeaders: "",
};

/** What the form's body is for its endpoint and method: text, frames, or none. */
export const bodyKind = (f: Pick<ComposerForm, "endpoint" | "method">) => ENDPOINTS[f.endpoint].body(f.method);

/** The guards that apply to the form's endpoint and method; the others are never sent. */
export const guardsFor = (f: Pick<ComposerForm, "endpoint" | "method">): Guard[] => ENDPOINTS[f.endpoint].guards(f.method);

/** The form as the exact request object that will be sent. Header order is the order shown. */
export function buildRequest(f: ComposerForm): ProtocolRequest {
  const headers: HeaderList = [];
  const kind = bodyKind(f);
  const on = new Set(guardsFor(f));
  const body = kind === "text" && f.body.length > 0 ? f.body : undefined;
  if (kind !== "none" && f.sendContentType && f.contentType.trim()) headers.push(["Content-Type", f.contentType.trim()]);
  if (on.has("seq") && f.seqOn) headers.push(["Stream-Seq", f.seq]);
  if (on.has("producer") && f.producerOn) headers.push(["Producer-Id", f.producerId], ["Producer-Epoch", f.producerEpoch.trim()], ["Producer-Seq", f.producerSeq.trim()]);
  if (on.has("incarnation") && f.incarnationOn) headers.push(["Stream-Incarnation", f.incarnation.trim()]);
  if (on.has("closed") && f.closedOn) headers.push(["Stream-Closed", "true"]);
  if (on.has("ttl") && f.ttlOn) headers.push(f.ttlMode === "ttl" ? ["Stream-TTL", f.ttl.trim()] : ["Stream-Expires-At", f.expiresAt.trim()]);
  if (on.has("snapshot-match") && f.snapshotMatchOn) headers.push(["Stream-Snapshot-Match", f.snapshotMatch.trim()]);
  if (on.has("prefer-minimal") && f.preferMinimal) headers.push(["Prefer", "return=minimal"]);
  for (const line of f.extraHeaders.split("\n")) {
    const i = line.indexOf(":");
    if (i > 0) headers.push([line.slice(0, i).trim(), line.slice(i + 1).trim()]);
  }
  const target = (f.target.trim() || "/").replace(/\/+$/, "") + endpointSuffix(f.endpoint, f.offset);
  const query = f.method === "GET" && f.endpoint === "stream" ? f.query.trim().replace(/^\?/, "") : "";
  const req: ProtocolRequest = { method: f.method, path: query ? `${target}?${query}` : target || "/", headers, body };
  if (kind === "frames") req.frames = [...f.frames];
  return req;
}

/** The stream the composer knew is gone: the token it keeps sending, and the stream's token now. */
export interface Recreated {
  path: string;
  kept: string;
  current: string;
  /** The server refused the request (412); otherwise an answer without the guard revealed it. */
  refused: boolean;
}

/** "offset=…" in a read's query set to -1, the start of a stream, other parameters kept. */
export function fromTheStart(query: string): string {
  const q = new URLSearchParams(query.trim().replace(/^\?/, ""));
  if (!q.has("offset")) return query;
  q.set("offset", "-1");
  return q.toString();
}

export type RetryState = { kind: "none" } | { kind: "planning" } | { kind: "ready"; plan: RetryPlan } | { kind: "error"; message: string };

export class ComposerModel {
  readonly form = signal<ComposerForm>(DEFAULT_FORM);
  readonly last = signal<Exchange | null>(null);
  readonly sending = signal(false);
  readonly retry = signal<RetryState>({ kind: "none" });
  /** Set when `last` was a retry: the plan that produced it. */
  readonly retriedWith = signal<RetryPlan | null>(null);
  /** Set when an answer named another incarnation of the target than the token the form keeps. */
  readonly recreated = signal<Recreated | null>(null);
  /** The target the form's token was learned for; a token kept for another target is replaced quietly. */
  private tokenFor: string | null = null;

  constructor(
    private readonly transport: Transport,
    private readonly retryTransport: Transport = transport,
  ) {}

  update(patch: Partial<ComposerForm>): void {
    if (patch.target !== undefined && patch.target.trim() !== this.form.value.target.trim()) this.recreated.value = null;
    this.form.value = { ...this.form.value, ...patch };
  }

  /** The target's token as a page learned it (the stream page's introspection record). */
  knowToken(target: string, token: string): void {
    this.tokenFor = target.trim();
    this.update({ incarnation: token });
  }

  /**
   * The person chose to work with the new stream: adopt its token and clear what was derived
   * from the old one (the offset, Producer-Seq and Stream-Seq); reads start from its start.
   */
  startOver(): void {
    const r = this.recreated.value;
    if (!r) return;
    const f = this.form.value;
    this.tokenFor = r.path;
    batch(() => {
      this.update({ incarnation: r.current, offset: "", query: fromTheStart(f.query), producerSeq: "0", seq: padSeq(0), snapshotMatch: "" });
      this.recreated.value = null;
      this.retry.value = { kind: "none" };
      this.retriedWith.value = null;
    });
  }

  /** Switches what the request addresses; a method the endpoint does not answer becomes its first. */
  setEndpoint(endpoint: Endpoint): void {
    const spec = ENDPOINTS[endpoint];
    const f = this.form.value;
    const patch: Partial<ComposerForm> = { endpoint, method: spec.methods.includes(f.method) ? f.method : spec.methods[0]! };
    // Attributes are JSON, whatever the stream's type.
    if (endpoint === "attrs" && f.endpoint !== "attrs") Object.assign(patch, { contentType: "application/json", sendContentType: true, body: '{"title":"","metadata":{}}' });
    this.update(patch);
  }

  async send(): Promise<Exchange> {
    return this.sendRequest(buildRequest(this.form.value), this.transport, null);
  }

  /**
   * Create the target stream: a PUT with the form's Content-Type and nothing else (no Stream-Seq,
   * so a prefix-count stream's first commit, 0, is accepted). Shown as the last exchange.
   */
  async createTarget(): Promise<Exchange> {
    const f = this.form.value;
    const headers: HeaderList = f.contentType.trim() ? [["Content-Type", f.contentType.trim()]] : [];
    return this.sendRequest({ method: "PUT", path: f.target.trim(), headers }, this.transport, null);
  }

  /** Work out the retry (reads on to Stream-Next-Offset) and, unless `prefillOnly`, send it. */
  async retryFrom409(prefillOnly = false): Promise<Exchange | null> {
    const failed = this.last.value;
    if (!failed || !retryEligible(failed)) return null;
    this.retry.value = { kind: "planning" };
    // ursa-client comes with the first retry, not with the console.
    const { planRetry } = await import("./retryPlan");
    const plan = await planRetry(failed, this.retryTransport);
    this.retry.value = { kind: "ready", plan };
    this.update({ seqOn: true, seq: plan.seq });
    if (prefillOnly || plan.warning === "Needs a manual value.") return null;
    return this.sendRequest(retryRequest(failed.request, plan.seq), this.retryTransport, plan);
  }

  private async sendRequest(req: ProtocolRequest, transport: Transport, plan: RetryPlan | null): Promise<Exchange> {
    this.sending.value = true;
    // An SSE read never ends by itself: show what the first seconds brought. A bootstrap is
    // multipart with message bytes of any kind: keep them exact to split the parts.
    const live = /[?&]live=sse(&|$)/.test(req.path);
    const ex = await transport(req, live ? { maxReadMs: 3000 } : /\/bootstrap(\?|$)/.test(req.path) ? { keepBytes: true } : undefined);
    batch(() => {
      this.sending.value = false;
      this.last.value = ex;
      this.retriedWith.value = plan;
      if (!plan) this.retry.value = { kind: "none" };
      this.learnFrom(ex);
    });
    return ex;
  }

  /**
   * Prefill from the answer: the target's incarnation token the first time it is seen, and the
   * next Producer-Seq after an accept. A token other than the one kept for this target is never
   * taken: the stream was recreated, and `recreated` says so until the person starts over.
   */
  private learnFrom(ex: Exchange): void {
    const f = this.form.value;
    const patch: Partial<ComposerForm> = {};
    const token = getHeader(ex.response?.headers, "stream-incarnation");
    const target = f.target.trim();
    if (token && streamPathOf(ex.request.path) === target) {
      const kept = f.incarnation.trim();
      const refused = ex.response?.status === 412;
      if (token !== kept && (refused || (kept !== "" && this.tokenFor === target))) this.recreated.value = { path: target, kept, current: token, refused };
      else if (!refused) {
        patch.incarnation = token;
        this.tokenFor = target;
      }
    }
    // The digest a conditional publish matches on: the visible snapshot's, as the last answer gave it.
    const digest = getHeader(ex.response?.headers, "stream-snapshot-digest");
    if (digest && streamPathOf(ex.request.path) === f.target.trim()) patch.snapshotMatch = digest;
    const status = ex.response?.status;
    if (f.producerOn && f.autoIncrement && status === 200 && getHeader(ex.request.headers, "producer-seq") === f.producerSeq.trim()) {
      patch.producerSeq = String(Number(f.producerSeq) + 1);
    }
    if (Object.keys(patch).length) this.update(patch);
  }
}
