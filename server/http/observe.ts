// Every response, fitted to its request's method (error-map.ts answerTo), counted under the family
// of the route its request took (router.ts) and (when its level is on) logged. At the default level nothing is
// logged for a request that succeeds or that the client got wrong (4xx): one line per request at
// 20k appends/s would bury everything else. --log-level debug logs each request; 5xx responses are
// logged at warn, at most one line per error code every ten seconds, with a count of the rest.

import type { AppDeps } from "./deps";
import { answerTo, errorCodeOf } from "./error-map";
import { rawPathname } from "../protocol/paths";
import type { Match } from "./router";

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
 * Wraps the app's handler: matches the request to its route (router.ts), once, before anything
 * answers it, so a request the gate refuses counts in the family of the route it asked for; turns
 * what the handler throws or rejects with into a response (`failed`), counts each response and logs
 * the ones whose level is on. One promise reaction per async response does both, the same one a
 * bare `.catch(failed)` would cost.
 */
export function observed(
  deps: AppDeps,
  route: (method: string, raw: string) => Match,
  handle: (req: Request, route: Match) => Response | Promise<Response>,
  failed: (error: unknown) => Response,
) {
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

  const done = (req: Request, matched: Match, res: Response, startedAt: number, client: string | undefined): Response => {
    res = answerTo(req.method, res);
    if (metrics) {
      metrics.request(matched.family, req.method, res.status);
      if (res.status >= 400) {
        const code = errorCodeOf(res);
        if (code !== undefined) metrics.errorResponse(code);
      }
    }
    if (debug || (warn && res.status >= 500)) logRequest(req, matched.raw, res, startedAt, client);
    return res;
  };

  return (req: Request): Response | Promise<Response> => {
    const startedAt = performance.now();
    const matched = route(req.method, rawPathname(req.url));
    // Only when every request is logged is the address worth asking for before the answer.
    const client = debug ? deps.clientAddress(req) : undefined;
    let res: Response | Promise<Response>;
    try {
      res = handle(req, matched);
    } catch (error) {
      res = failed(error);
    }
    if (!(res instanceof Promise)) return done(req, matched, res, startedAt, client);
    return res.then(
      (r) => done(req, matched, r, startedAt, client),
      (error) => done(req, matched, failed(error), startedAt, client),
    );
  };
}
