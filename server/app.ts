// createApp(deps): the whole HTTP surface, every request through one route table (http/router.ts),
// so tests run it in-process with app.request() and main.ts serves the same app from the binary.

import { protocolError } from "./protocol/errors";
import { bucketRoutes } from "./http/bucket-routes";
import { consoleRoutes, WEB_ROOT } from "./http/console-routes";
import type { AppDeps } from "./http/deps";
import { ClientShares } from "./http/client-share";
import { errorCodeOf, renderError } from "./http/error-map";
import { introspectionRoutes } from "./http/introspection-routes";
import { observed } from "./http/observe";
import { readerRoutes } from "./http/reader-routes";
import { opsRoutes } from "./http/ops-routes";
import { H } from "./http/headers";
import { pathStart } from "./protocol/paths";
import { surfaceOf } from "./http/security/cors";
import { Gate } from "./http/security/gate";
import { DEFAULT_SECURITY } from "./http/security/options";
import { dispatcher, Routes, type Match } from "./http/router";
import { streamRoutes } from "./http/stream-routes";
import { subscriptionRoutes } from "./http/subscription-routes";
import { StorageFault } from "./storage/write-health";

/** The whole HTTP surface: `fetch` for Bun.serve, `request` for tests (a URL and RequestInit), and the route a request takes. */
export interface App {
  fetch(req: Request): Response | Promise<Response>;
  request(url: string, init?: RequestInit): Response | Promise<Response>;
  route(method: string, raw: string): Match;
}

export function createApp(deps: AppDeps, webRoot = WEB_ROOT): App {
  const gate = new Gate(deps.security ?? DEFAULT_SECURITY);
  const router = dispatcher(appRoutes(deps, gate, webRoot), () => renderError(protocolError("NOT_FOUND", "no such route")));

  // A disk that refuses writes (full, read-only, failing) refuses them until it takes them again;
  // it is said in the log once a minute, not with a stack per refused write. Damaged pages are
  // logged where they are found (per stream, or by the integrity check), and answered here.
  let diskLoggedAt = -Infinity;
  let corruptLoggedAt = -Infinity;
  const failed = (error: unknown): Response => {
    const disk = deps.store.diskFailure(error);
    if (disk === null) return internalError(deps, error);
    const message = (error as Error).message;
    const now = performance.now();
    if (disk === "corrupt") {
      // A StorageFault was logged where it was raised; SQLite's own error, from a page of no one stream, is logged here.
      if (error instanceof StorageFault) return renderError(protocolError("STORAGE_CORRUPT", message));
      if (now - corruptLoggedAt >= 60_000) {
        corruptLoggedAt = now;
        deps.log.error("a damaged database page failed on read; stop ursa and repair or restore the database (docs/operations.md)", { error: message });
      }
      return renderError(protocolError("STORAGE_CORRUPT", "a damaged database page failed on read"));
    }
    if (disk === "unavailable") {
      if (now - diskLoggedAt >= 60_000) {
        diskLoggedAt = now;
        deps.log.warn("the database cannot be reached; requests get 503 DATABASE_UNAVAILABLE until it can", { error: message });
      }
      return renderError(protocolError("DATABASE_UNAVAILABLE", "the server cannot reach its database; nothing of this request was written, retry shortly"));
    }
    const full = disk === "full";
    if (now - diskLoggedAt >= 60_000) {
      diskLoggedAt = now;
      deps.log.warn(full ? "storage is full; writes get 507 STORAGE_FULL until there is room again" : `storage refuses writes (${disk}); writes get 503 STORAGE_UNAVAILABLE until it takes them again`, { error: message });
    }
    return full
      ? renderError(protocolError("STORAGE_FULL", "the server's storage is full; nothing of this request was written"))
      : renderError(protocolError("STORAGE_UNAVAILABLE", "the server's storage refuses writes; nothing of this request was written"));
  };

  const shares = new ClientShares(deps.limits.maxRequestsPerClient, deps.clientAddress);
  const handle = (req: Request, route: Match): Response | Promise<Response> => {
    // Each request holds a connection, and so a file descriptor, until it is answered: past the
    // cap it is answered at once, and the connection closed, so descriptors never run out.
    const inProgress = deps.inFlight();
    if (inProgress > deps.limits.maxConnections) {
      return letBodyGo(req, renderError(protocolError("CONNECTION_LIMIT", "the server is handling as many requests as it may; retry shortly")));
    }
    if (!shares.enter(req, inProgress)) {
      return letBodyGo(req, renderError(protocolError("CLIENT_REQUEST_LIMIT", "this client has as many requests in progress as one client may (--max-requests-per-client); retry when one is answered")));
    }
    let answer: Response | Promise<Response>;
    try {
      answer = admitAndServe(req, route);
    } catch (error) {
      shares.leave(req);
      throw error;
    }
    if (!(answer instanceof Promise)) {
      shares.leave(req);
      return letBodyGo(req, answer);
    }
    return answer.then(
      (res) => (shares.leave(req), letBodyGo(req, res)),
      (error) => {
        shares.leave(req);
        throw error;
      },
    );
  };

  /**
   * An answer given while the request's body is still arriving (a refusal from its headers, a
   * limit): the client must be able to read it (RFC 9112 §9.6). Closing at once would reset the
   * connection under the client's upload and lose the answer, so the answer goes out, Bun reads
   * and drops what else arrives for DRAIN_SECONDS at most, and then closes the connection.
   */
  const letBodyGo = (req: Request, res: Response): Response => {
    if (!hasBody(req) || deps.pacer.arrivedWhole(req) || errorCodeOf(res) === "BODY_TOO_SLOW") return res;
    res.headers.delete(H.connection);
    deps.closeIdleAfter(req, DRAIN_SECONDS);
    return res;
  };

  const admitAndServe = (req: Request, route: Match): Response | Promise<Response> => {
    // Bun builds the request URL from the Host header without checking it, and a URL that does
    // not parse broke every handler that reads it. An invalid Host is a malformed request (RFC 9112 §3.2),
    // and so are two of them, which Bun joins with a comma while the URL takes the first.
    if (!URL.canParse(req.url)) return renderError(protocolError("BAD_REQUEST", "the Host header is not a valid host[:port]"));
    if (req.headers.get(H.host)?.includes(",")) return renderError(protocolError("BAD_REQUEST", "a request carries exactly one Host header, naming one host[:port]"));
    const { raw } = route;
    const start = pathStart(req.url);
    const surface = surfaceOf(raw);
    // Host, cross-origin and access checks (security/gate.ts), in front of every route.
    const admitted = gate.admit(req, raw, start, surface);
    if (admitted === undefined) return gate.finish(req, surface, router.serve(req, route));
    if (admitted instanceof Response) return gate.finish(req, surface, admitted);
    return gate.finish(req, surface, admitted.then((refused) => refused ?? router.serve(req, route)));
  };
  const fetch = observed(deps, router.match, handle, failed);
  return { fetch, request: (url, init) => fetch(new Request(url, init)), route: router.match };
}

/** The whole route table: the console, the admin API, buckets and streams. */
export function appRoutes(deps: AppDeps, gate: Gate, webRoot = WEB_ROOT): Routes {
  const admin = new Routes("admin", "/__ursula")
    .routes(opsRoutes(deps))
    .routes(introspectionRoutes(deps, gate))
    .routes(readerRoutes(deps))
    .all("/*", () => renderError(protocolError("NOT_FOUND", "no such admin route")));
  return new Routes("other").routes(consoleRoutes(webRoot)).routes(admin).routes(bucketRoutes(deps)).routes(subscriptionRoutes(deps)).routes(streamRoutes(deps, (req) => gate.credentialLeftMs(req)));
}

/** How long a refused request's body may go on arriving, read and dropped, before its connection closes. */
const DRAIN_SECONDS = 2;

/** Whether a request declares a body, or sends one chunked. */
function hasBody(req: Request): boolean {
  const length = req.headers.get(H.contentLength);
  return length !== null ? length !== "0" : req.headers.has(H.transferEncoding);
}

function internalError(deps: AppDeps, error: unknown): Response {
  // The stack alone: Bun would also print the source line around it, a screen of minified code.
  deps.log.error("internal error", { error: error instanceof Error ? error.message : String(error), stack: error instanceof Error ? error.stack : undefined });
  return renderError(protocolError("INTERNAL", "internal error"));
}
