// Every response, fitted to its request's method (error-map.ts answerTo), counted and (when its
// level is on) logged. At the default level nothing is
// logged for a request that succeeds or that the client got wrong (4xx): one line per request at
// 20k appends/s would bury everything else. --log-level debug logs each request; 5xx responses are
// logged at warn, at most one line per error code every ten seconds, with a count of the rest.

import { ROUTE_FAMILIES, type RouteFamily } from "../ops/server-metrics";
import type { AppDeps } from "./deps";
import { answerTo, errorCodeOf } from "./error-map";
import { rawPathname } from "../protocol/paths";
import { SUB_RESOURCES } from "./sub-resources";

const FAMILY = Object.fromEntries(ROUTE_FAMILIES.map((f, i) => [f, i])) as Record<RouteFamily, number>;

/** A sub-resource's family by its path segment, and whether a further segment (its argument) is routed. */
const SUB_FAMILY = new Map([...SUB_RESOURCES].map(([name, spec]) => [name, { family: FAMILY[spec.family], takesArgument: spec.takesArgument }]));

/**
 * The route family of a raw path, as app.ts routes it. Worked out from the path rather than from
 * the row that matched: the gate (security/gate.ts) answers some requests before any row is
 * tried, and those count in the family of the route they asked for.
 */
export function routeFamily(method: string, raw: string): number {
  if (method === "OPTIONS") return FAMILY.preflight;
  if (raw.startsWith("/__ursula/")) return FAMILY.admin;
  if (raw === "/" || raw === "/ui" || raw.startsWith("/ui/")) return FAMILY.console;
  if (raw === "/v1/stream" || raw.startsWith("/v1/stream/")) return FAMILY.stream;
  // Counted for every request: indexes, no substrings but the one sub-resource segment.
  const slash = raw.indexOf("/", 1);
  if (slash < 0) return raw.length > 1 ? FAMILY.bucket : FAMILY.other;
  if (slash === raw.length - 1) return FAMILY.other;
  const second = raw.indexOf("/", slash + 1);
  if (second < 0) return raw.length - slash === 8 && raw.endsWith("/streams") ? FAMILY.listing : FAMILY.stream;
  if (second === slash + 1) return FAMILY.other;
  const third = raw.indexOf("/", second + 1);
  const sub = SUB_FAMILY.get(third < 0 ? raw.slice(second + 1) : raw.slice(second + 1, third));
  if (sub === undefined) return FAMILY.other;
  if (third < 0) return sub.family;
  return sub.takesArgument && third < raw.length - 1 && raw.indexOf("/", third + 1) < 0 ? sub.family : FAMILY.other;
}

/**
 * Query parameters whose values never reach a log line: `access_token` carries a bearer token
 * where a header cannot (EventSource).
 */
export const REDACTED_PARAMS = ["access_token"];

export function redactQuery(query: string): string {
  return query
    .split("&")
    .map((pair) => {
      const eq = pair.indexOf("=");
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return REDACTED_PARAMS.includes(safeDecode(name)) ? `${name}=REDACTED` : pair;
    })
    .join("&");
}

const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
};

const WARN_EVERY_MS = 10_000;

/**
 * Wraps the app's handler: turns what it throws or rejects with into a response (`failed`), counts
 * each response and logs the ones whose level is on. One promise reaction per async response does
 * both, the same one a bare `.catch(failed)` would cost.
 */
export function observed(deps: AppDeps, handle: (req: Request, raw: string) => Response | Promise<Response>, failed: (error: unknown) => Response) {
  const { metrics, log } = deps;
  const debug = log.enabled("debug");
  const warn = log.enabled("warn");
  const warned = new Map<string, { at: number; skipped: number }>();

  const logRequest = (req: Request, raw: string, res: Response, startedAt: number, client: string | undefined) => {
    const now = performance.now();
    const code = errorCodeOf(res);
    let skipped: number | undefined;
    if (!debug) {
      // A 5xx, at warn: once per code per ten seconds.
      const key = code ?? String(res.status);
      const last = warned.get(key);
      if (last && now - last.at < WARN_EVERY_MS) {
        last.skipped++;
        return;
      }
      skipped = last?.skipped;
      warned.set(key, { at: now, skipped: 0 });
    }
    const q = req.url.indexOf("?");
    log.log(res.status >= 500 && !debug ? "warn" : "debug", "request", {
      method: req.method,
      path: raw,
      query: q < 0 ? undefined : redactQuery(req.url.slice(q + 1)),
      status: res.status,
      ms: Math.round((now - startedAt) * 1000) / 1000,
      code,
      // Asked at the end for a 5xx: the connection may be gone by then.
      client: client ?? deps.clientAddress(req),
      similar_not_logged: skipped || undefined,
    });
  };

  const done = (req: Request, raw: string, res: Response, startedAt: number, client: string | undefined): Response => {
    res = answerTo(req.method, res);
    if (metrics) {
      metrics.request(routeFamily(req.method, raw), req.method, res.status);
      if (res.status >= 400) {
        const code = errorCodeOf(res);
        if (code !== undefined) metrics.errorResponse(code);
      }
    }
    if (debug || (warn && res.status >= 500)) logRequest(req, raw, res, startedAt, client);
    return res;
  };

  return (req: Request): Response | Promise<Response> => {
    const startedAt = performance.now();
    const raw = rawPathname(req.url);
    // Only when every request is logged is the address worth asking for before the answer.
    const client = debug ? deps.clientAddress(req) : undefined;
    let res: Response | Promise<Response>;
    try {
      res = handle(req, raw);
    } catch (error) {
      res = failed(error);
    }
    if (!(res instanceof Promise)) return done(req, raw, res, startedAt, client);
    return res.then(
      (r) => done(req, raw, r, startedAt, client),
      (error) => done(req, raw, failed(error), startedAt, client),
    );
  };
}
