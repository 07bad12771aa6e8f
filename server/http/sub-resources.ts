// A stream's sub-resources (spec §1.1, §2.10–§2.18) and the methods each answers. HEAD is
// answered where GET is, with GET's headers, no body, and no TTL renewal (spec §7.1).

import type { RouteFamily } from "../ops/server-metrics";
import { protocolError } from "../protocol/errors";
import { appendBatch } from "./append-batch";
import { getAttrs, putAttrs } from "./attrs-routes";
import { bootstrap } from "./bootstrap";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import type { StreamPath } from "../protocol/paths";
import { advanceRetention } from "./retention-routes";
import { deleteSnapshot, latestSnapshot, publishSnapshot, readSnapshot } from "./snapshot-routes";

type Handler = (deps: AppDeps, req: Request, path: StreamPath, arg: string | null, head: boolean) => Promise<Response> | Response;

interface SubResource {
  /** Its label in ursa_http_requests_total (observe.ts). */
  family: RouteFamily;
  takesArgument: boolean;
  /** Handlers by method, without and with the path argument. */
  bare: Partial<Record<string, Handler>>;
  withArgument?: Partial<Record<string, Handler>>;
}

const attrs: SubResource = {
  family: "attrs",
  takesArgument: false,
  bare: { GET: (d, r, p, _a, head) => getAttrs(d, r, p, head), PUT: (d, r, p) => putAttrs(d, r, p) },
};

const snapshot: SubResource = {
  family: "snapshot",
  takesArgument: true,
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
  takesArgument: true,
  bare: { PUT: (d, r, p) => advanceRetention(d, r, p, null) },
  withArgument: { PUT: (d, r, p, a) => advanceRetention(d, r, p, a) },
};

export const SUB_RESOURCES = new Map<string, SubResource>([
  ["attrs", attrs],
  ["snapshot", snapshot],
  ["retention", retention],
  ["bootstrap", { family: "bootstrap", takesArgument: false, bare: { GET: (d, r, p, _a, head) => bootstrap(d, r, p, head) } }],
  ["append-batch", { family: "append_batch", takesArgument: false, bare: { POST: (d, r, p) => appendBatch(d, r, p) } }],
]);

export function subResource(deps: AppDeps, req: Request, path: StreamPath, name: string, arg: string | null): Promise<Response> | Response {
  const resource = SUB_RESOURCES.get(name)!;
  const handlers = (arg === null ? resource.bare : resource.withArgument) ?? {};
  const head = req.method === "HEAD";
  const method = head ? "GET" : req.method;
  const handler = Object.hasOwn(handlers, method) ? handlers[method] : undefined;
  if (handler) return handler(deps, req, path, arg, head);
  const methods = Object.keys(handlers);
  if (methods.includes("GET")) methods.splice(methods.indexOf("GET") + 1, 0, "HEAD");
  const allow = [...methods, "OPTIONS"].join(", ");
  return renderError(protocolError("METHOD_NOT_ALLOWED", `${req.method} is not allowed on …/${name}${arg === null ? "" : "/{offset}"}`, { allow }));
}
