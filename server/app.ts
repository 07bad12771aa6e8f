// createApp(deps): the whole HTTP surface as a Hono app, so tests run it in-process with
// app.request() and main.ts serves the same app from the binary.

import { Hono } from "hono";
import { protocolError } from "./protocol/errors";
import { bucketRoutes } from "./http/bucket-routes";
import { consoleRoutes, WEB_ROOT } from "./http/console-routes";
import type { AppDeps } from "./http/deps";
import { renderError } from "./http/error-map";
import { introspectionRoutes } from "./http/introspection-routes";
import { pathStart, rawPathname } from "./http/paths";
import { surfaceOf } from "./http/security/cors";
import { Gate } from "./http/security/gate";
import { DEFAULT_SECURITY } from "./http/security/options";
import { fastStream, streamRoutes } from "./http/stream-routes";

export function createApp(deps: AppDeps, webRoot = WEB_ROOT): Hono {
  const app = new Hono();
  const gate = new Gate(deps.security ?? DEFAULT_SECURITY);

  app.route("/", consoleRoutes(webRoot));
  app.route("/__ursula", introspectionRoutes(deps, gate));
  app.all("/__ursula/*", () => renderError(protocolError("NOT_FOUND", "no such admin route")));
  app.route("/", bucketRoutes(deps));
  app.route("/", streamRoutes(deps));

  app.notFound(() => renderError(protocolError("NOT_FOUND", "no such route")));
  // A full disk refuses writes until there is room again; it is said in the log once a minute, not
  // with a stack per refused write.
  let fullLoggedAt = -Infinity;
  const failed = (error: unknown): Response => {
    if (!deps.store.isStorageFull(error)) return internalError(error);
    const now = performance.now();
    if (now - fullLoggedAt >= 60_000) {
      fullLoggedAt = now;
      console.error("ursa: storage is full; writes get 507 STORAGE_FULL until there is room again");
    }
    return renderError(protocolError("STORAGE_FULL", "the server's storage is full; nothing of this request was written"));
  };
  app.onError(failed);

  // Stream requests skip the router: its matching, Context and HonoRequest were ~8% of an
  // append's profile samples. It still takes every other path, including the two-segment ones
  // fastStream leaves to it.
  const routed = app.fetch;
  type Rest = Parameters<typeof routed> extends [Request, ...infer R] ? R : never;
  const serve = (req: Request, raw: string, rest: Rest): Response | Promise<Response> => {
    try {
      const response = fastStream(deps, req, raw);
      if (response === undefined) return routed(req, ...rest);
      return response instanceof Promise ? response.catch(failed) : response;
    } catch (error) {
      return failed(error);
    }
  };
  app.fetch = (req, ...rest) => {
    // Bun builds the request URL from the Host header without checking it, and a URL that does
    // not parse broke every handler that reads it. An invalid Host is a malformed request (RFC 9112 §3.2).
    if (!URL.canParse(req.url)) return renderError(protocolError("BAD_REQUEST", "the Host header is not a valid host[:port]"));
    const start = pathStart(req.url);
    const raw = rawPathname(req.url, start);
    const surface = surfaceOf(raw);
    // Host, cross-origin and access checks (security/gate.ts), in front of both paths.
    const admitted = gate.admit(req, raw, start, surface);
    if (admitted === undefined) return gate.finish(req, surface, serve(req, raw, rest));
    if (admitted instanceof Response) return gate.finish(req, surface, admitted);
    return gate.finish(req, surface, admitted.then((refused) => refused ?? serve(req, raw, rest)));
  };
  return app;
}

function internalError(error: unknown): Response {
  // The stack alone: Bun would also print the source line around it, a screen of minified code.
  console.error("ursa: internal error:", error instanceof Error ? error.stack : error);
  return renderError(protocolError("INTERNAL", "internal error"));
}
