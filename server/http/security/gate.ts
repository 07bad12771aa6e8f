// The one place every request passes before it is routed (app.ts, http/router.ts), in this order:
//   1. Host: a name the server does not answer to is refused (host-check.ts).
//   2. OPTIONS: the preflight answer (cors.ts).
//   3. Cross-origin: a browser write from another origin, or a read of the introspection API, is
//      refused unless the origin is listed; a write may instead carry a bearer token (cross-origin.ts).
//   4. Authentication and authorization, when tokens or a JWKS are configured (server/auth).
// With authentication off, an append costs three header lookups here and nothing asynchronous.

import { requiredAccess, forkSource, type Access } from "../../auth/access";
import { Authenticator, authMode, type AuthMode } from "../../auth/authenticator";
import { authorize } from "../../auth/authorize";
import { credentialOf } from "../../auth/bearer";
import type { AuthResult } from "../../auth/jwt";
import { ANONYMOUS, OPEN, type Principal } from "../../auth/principal";
import { READ } from "../../auth/scopes";
import { visibilityOf, type Visibility } from "../../auth/visibility";
import { protocolError, type ProtocolError } from "../../protocol/errors";
import { renderError } from "../error-map";
import { H, headerText } from "../headers";
import { Cors, type Surface } from "./cors";
import { isSafeMethod } from "../../protocol/methods";
import { isCrossOrigin } from "./cross-origin";
import { HostCheck } from "./host-check";
import type { SecurityConfig } from "./options";

/** undefined: the request goes on to its handler. */
export type Admission = Response | undefined | Promise<Response | undefined>;

export class Gate {
  readonly mode: AuthMode;
  readonly publicRead: boolean;
  private readonly hosts: HostCheck;
  private readonly cors: Cors;
  private readonly auth: Authenticator | null;
  /** Set for /__ursula/ requests only, the routes that look at who asks. */
  private readonly principals = new WeakMap<Request, Principal>();
  /** When the credential of an admitted request stops being accepted, for those that expire (JWTs). */
  private readonly deadlines = new WeakMap<Request, number>();

  constructor(
    config: SecurityConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.mode = authMode(config.auth);
    this.publicRead = config.auth.publicRead;
    this.hosts = new HostCheck(config.allowedHosts);
    this.auth = this.mode === "none" ? null : new Authenticator(config.auth, now);
    this.cors = new Cors(config.cors, this.auth !== null);
  }

  /** `pathStart` is where the request URL's path begins, `raw` that path still encoded. */
  admit(req: Request, raw: string, pathStart: number, surface: Surface): Admission {
    const url = req.url;
    if (!this.hosts.allows(url, pathStart)) {
      // Nothing of the foreign host is echoed: not in the message, not in a Location.
      return renderError(protocolError("HOST_NOT_ALLOWED", "this server does not answer to that host name; its operator can allow it with --allowed-hosts"));
    }
    const method = req.method;
    if (method === "OPTIONS") return this.cors.preflight(req.headers);
    if ((surface === "private" || !isSafeMethod(method)) && isCrossOrigin(req.headers, url, pathStart)) {
      const refused = this.crossOrigin(req.headers, surface);
      if (refused) return renderError(refused);
    }
    return this.auth === null ? undefined : this.authenticate(req, method, raw);
  }

  /** The CORS headers for this origin and surface, on whatever the handler answered. */
  finish(req: Request, surface: Surface, response: Response | Promise<Response>): Response | Promise<Response> {
    if (!this.cors.decorates(surface)) return response;
    const origin = req.headers.get(H.origin);
    return response instanceof Promise ? response.then((r) => this.cors.decorate(r, origin, surface)) : this.cors.decorate(response, origin, surface);
  }

  /** Who sent a request under /__ursula/ that was admitted. */
  principal(req: Request): Principal {
    return this.auth === null ? OPEN : (this.principals.get(req) ?? ANONYMOUS);
  }

  /** The buckets an admitted request under /__ursula/ may see (auth/visibility.ts). */
  visibility(req: Request): Visibility {
    return visibilityOf(this.principal(req), this.publicRead);
  }

  private crossOrigin(headers: Headers, surface: Surface): ProtocolError | null {
    if (this.cors.trusts(headers.get(H.origin))) return null;
    // A page can only carry a token it was given; the token is checked next. Private reads are for
    // the console and listed origins only.
    if (surface !== "private" && this.auth !== null && /^bearer /i.test(headers.get(H.authorization) ?? "")) return null;
    return protocolError(
      "CROSS_ORIGIN_FORBIDDEN",
      surface === "private"
        ? "the introspection API is not readable from other origins; list the origin with --cors-origins"
        : "a write from another origin needs a bearer token, or the origin listed with --cors-origins",
    );
  }

  private authenticate(req: Request, method: string, raw: string): Admission {
    const access = requiredAccess(method, raw);
    if (access.kind === "open") return undefined;
    const credential = credentialOf(method, req.headers.get(H.authorization), req.url);
    if (credential.kind === "refused") return renderError(credential.error);
    if (credential.kind === "none") return this.decide(req, ANONYMOUS, access, raw);
    const result = this.auth!.authenticate(credential.token);
    return result instanceof Promise ? result.then((r) => this.settle(req, r, access, raw)) : this.settle(req, result, access, raw);
  }

  private settle(req: Request, result: AuthResult, access: Access, raw: string): Response | undefined {
    return result.ok ? this.decide(req, result.principal, access, raw) : renderError(result.error);
  }

  private decide(req: Request, principal: Principal, access: Access, raw: string): Response | undefined {
    const refusal = authorize(principal, access, this.publicRead) ?? this.forkRefusal(req, principal, access);
    if (refusal) return renderError(refusal);
    if (raw.startsWith("/__ursula/")) this.principals.set(req, principal);
    if (principal.acceptedUntilMs !== null) this.deadlines.set(req, principal.acceptedUntilMs);
    return undefined;
  }

  /**
   * How much longer the credential a request was admitted with is accepted, in ms; null when it
   * does not expire. A live read ends by then, so that it cannot outlast its token.
   */
  credentialLeftMs(req: Request): number | null {
    const until = this.deadlines.get(req);
    return until === undefined ? null : Math.max(0, until - this.now());
  }

  /** A fork reads its source: the principal must be able to read the source's bucket too. */
  private forkRefusal(req: Request, principal: Principal, access: Access): ProtocolError | null {
    const forkedFrom = req.headers.get(H.forkedFrom);
    const source = forkSource(req.method, access, forkedFrom === null ? null : headerText(forkedFrom));
    if (source === null) return null;
    const refusal = authorize(principal, { kind: "bucket", scope: READ, bucket: source.bucket, conceal: "STREAM_NOT_FOUND" }, this.publicRead);
    // A source the principal cannot see answers as a missing one does (protocol/create.ts).
    return refusal?.code === "STREAM_NOT_FOUND" ? protocolError("STREAM_NOT_FOUND", `fork source ${source.key} not found`) : refusal;
  }
}
