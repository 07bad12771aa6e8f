// The DS reserved subscription API (DS §6–§7) as rows of the route table, under every bucket
// (`/{bucket}/__ds/…`) and on the compatibility surface (`/v1/stream/__ds/…`, scope `v1`):
//   GET  …/__ds/jwks.json                              the wake signing key
//   GET, PUT, DELETE …/__ds/subscriptions/{id}          read, create or re-confirm, delete
//   POST …/__ds/subscriptions/{id}/streams              follow more streams explicitly
//   DELETE …/__ds/subscriptions/{id}/streams/{path}     stop following one explicitly
//   POST …/__ds/subscriptions/{id}/callback             a webhook receiver's acks
//   POST …/__ds/subscriptions/{id}/claim|ack|release    a pull-wake worker's lease
// Without subscriptions (an engine that keeps none) every row answers 404, as before.

import { protocolError, type ProtocolError } from "../protocol/errors";
import { parseBucketId, V1_PREFIX } from "../protocol/paths";
import { parseWakeAnswer, type WakeAnswer } from "../protocol/subscription-acks";
import { normalizeStreamPath, parseSubscriptionConfig } from "../protocol/subscription-config";
import { V1_SCOPE } from "../protocol/subscription-paths";
import { readBody } from "./body";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { baseHeaders, H } from "./headers";
import { Routes, type Resource, type RouteContext } from "./router";
import type { Answer, SubscriptionService } from "./subscriptions/service";

interface Target {
  service: SubscriptionService;
  scope: string;
  id: string;
}

export function subscriptionRoutes(deps: AppDeps): Routes {
  const routes = new Routes("subscription");
  for (const [prefix, scopeOf] of [
    [V1_PREFIX.slice(0, -1), () => V1_SCOPE],
    ["/:bucket", (c: RouteContext) => c.param("bucket")],
  ] as const) {
    const at = (c: RouteContext): Target | Response => {
      const service = deps.subscriptions;
      if (!service) return renderError(protocolError("NOT_FOUND", "subscriptions are not running on this server"));
      const scope = scopeOf(c);
      if (scope !== V1_SCOPE) {
        const bucket = parseBucketId(scope);
        if (!bucket.ok) return renderError(bucket.error);
      }
      return { service, scope, id: c.param("id") };
    };
    const row = (path: string, methods: Resource<Target>["methods"]) => routes.resource(`${prefix}/__ds/subscriptions/:id${path}`, { family: "subscription", on: `…/__ds/subscriptions/{id}${path}`, target: at, methods });

    routes.resource(`${prefix}/__ds/jwks.json`, {
      family: "subscription",
      on: "…/__ds/jwks.json",
      target: (c) => {
        const service = deps.subscriptions;
        return service ? { service, scope: scopeOf(c), id: "" } : renderError(protocolError("NOT_FOUND", "subscriptions are not running on this server"));
      },
      methods: { GET: (_c, t) => json(200, t.service.jwks(), "application/jwk-set+json") },
    });
    row("", {
      GET: async (_c, t) => render(await t.service.get(t.scope, t.id)),
      PUT: async (c, t) => {
        const body = await jsonBody(deps, c.raw);
        if (!isBody(body)) return renderError(body);
        const config = parseSubscriptionConfig(body.value);
        if (!config.ok) return renderError(protocolError("INVALID_SUBSCRIPTION", config.message));
        return render(await t.service.put(t.scope, t.id, config.value, new URL(c.raw.url).origin));
      },
      DELETE: async (_c, t) => render(await t.service.remove(t.scope, t.id)),
    });
    row("/streams", {
      POST: async (c, t) => {
        const body = await jsonBody(deps, c.raw);
        if (!isBody(body)) return renderError(body);
        const streams = (body.value as { streams?: unknown } | null)?.streams;
        if (!Array.isArray(streams) || streams.length === 0 || streams.some((s) => typeof s !== "string" || normalizeStreamPath(s) === "")) {
          return renderError(protocolError("INVALID_SUBSCRIPTION", "streams must be a non-empty array of stream paths"));
        }
        return render(await t.service.addStreams(t.scope, t.id, (streams as string[]).map(normalizeStreamPath)));
      },
    });
    row("/streams/:path", { DELETE: async (c, t) => render(await t.service.removeStream(t.scope, t.id, normalizeStreamPath(c.param("path")))) });
    row("/callback", { POST: (c, t) => withAnswer(deps, c.raw, (token, a) => t.service.callback(t.scope, t.id, token, a)) });
    row("/ack", { POST: (c, t) => withAnswer(deps, c.raw, (token, a) => t.service.ack(t.scope, t.id, token, a)) });
    row("/release", { POST: (c, t) => withAnswer(deps, c.raw, (token, a) => t.service.release(t.scope, t.id, token, a)) });
    row("/claim", {
      POST: async (c, t) => {
        const body = await jsonBody(deps, c.raw);
        if (!isBody(body)) return renderError(body);
        const worker = (body.value as { worker?: unknown } | null)?.worker;
        if (typeof worker !== "string" || worker.length === 0 || worker.length > 200) return renderError(protocolError("INVALID_SUBSCRIPTION", "worker names the claiming worker (1-200 characters)"));
        return render(await t.service.claim(t.scope, t.id, worker));
      },
    });
  }
  return routes;
}

async function withAnswer(deps: AppDeps, req: Request, run: (token: string | null, answer: WakeAnswer) => Promise<Answer>): Promise<Response> {
  const body = await jsonBody(deps, req);
  if (!isBody(body)) return renderError(body);
  const answer = parseWakeAnswer(body.value);
  if (!answer.ok) return renderError(protocolError("INVALID_SUBSCRIPTION", answer.message));
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(req.headers.get(H.authorization) ?? "");
  return render(await run(bearer?.[1] ?? null, answer.value));
}

/** The subscription API's bodies are small JSON documents. */
const MAX_BODY_BYTES = 64 * 1024;

async function jsonBody(deps: AppDeps, req: Request): Promise<{ value: unknown } | ProtocolError> {
  const hold = deps.bodies.hold();
  try {
    const bytes = await readBody(req, Math.min(MAX_BODY_BYTES, deps.limits.maxBodyBytes), hold, deps.pacer);
    if (!bytes.ok) return bytes.error;
    try {
      return { value: JSON.parse(new TextDecoder().decode(bytes.value)) as unknown };
    } catch {
      return protocolError("INVALID_JSON", "the body is not JSON");
    }
  } finally {
    hold.release();
  }
}

const isBody = (b: { value: unknown } | ProtocolError): b is { value: unknown } => !("kind" in b);

function render(answer: Answer): Response {
  if ("kind" in answer) return renderError(answer);
  if (answer.body === null) return new Response(null, { status: answer.status, headers: baseHeaders() });
  return json(answer.status, answer.body, "application/json");
}

function json(status: number, body: unknown, contentType: string): Response {
  const h = baseHeaders();
  h.set(H.contentType, contentType);
  return new Response(JSON.stringify(body), { status, headers: h });
}
