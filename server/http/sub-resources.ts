// A stream's sub-resources (spec §1.1, §2.10–§2.18) and the methods each answers, as the route
// table (stream-routes.ts) takes them. HEAD is answered where GET is (router.ts), with GET's
// headers, no body, and no TTL renewal (spec §7.1): a GET handler is told it answers a HEAD.

import type { RouteFamily } from "../ops/server-metrics";
import { appendBatch } from "./append-batch";
import { getAttrs, putAttrs } from "./attrs-routes";
import { bootstrap } from "./bootstrap";
import type { AppDeps } from "./deps";
import type { StreamPath } from "../protocol/paths";
import { advanceRetention } from "./retention-routes";
import { deleteSnapshot, latestSnapshot, publishSnapshot, readSnapshot } from "./snapshot-routes";

type Handler = (deps: AppDeps, req: Request, path: StreamPath, arg: string | null, head: boolean) => Promise<Response> | Response;

export type SubResourceMethods = Partial<Record<string, Handler>>;

interface SubResource {
  /** Its label in ursa_http_requests_total. */
  family: RouteFamily;
  /** Handlers by method, without and with the path argument (`…/{name}/{offset}`). */
  bare: SubResourceMethods;
  withArgument?: SubResourceMethods;
}

const attrs: SubResource = {
  family: "attrs",
  bare: { GET: (d, r, p, _a, head) => getAttrs(d, r, p, head), PUT: (d, r, p) => putAttrs(d, r, p) },
};

const snapshot: SubResource = {
  family: "snapshot",
  // PUT …/snapshot?record=N publishes at a record ordinal (spec §2.13).
  bare: { GET: (d, r, p, _a, head) => latestSnapshot(d, r, p, head), PUT: (d, r, p) => publishSnapshot(d, r, p, null) },
  withArgument: {
    GET: (d, r, p, a, head) => readSnapshot(d, r, p, a!, head),
    PUT: (d, r, p, a) => publishSnapshot(d, r, p, a),
    DELETE: (d, r, p, a) => deleteSnapshot(d, r, p, a!),
  },
};

const retention: SubResource = {
  family: "retention",
  bare: { PUT: (d, r, p) => advanceRetention(d, r, p, null) },
  withArgument: { PUT: (d, r, p, a) => advanceRetention(d, r, p, a) },
};

export const SUB_RESOURCES = new Map<string, SubResource>([
  ["attrs", attrs],
  ["snapshot", snapshot],
  ["retention", retention],
  ["bootstrap", { family: "bootstrap", bare: { GET: (d, r, p, _a, head) => bootstrap(d, r, p, head) } }],
  ["append-batch", { family: "append_batch", bare: { POST: (d, r, p) => appendBatch(d, r, p) } }],
]);
