// The decision for one request: allowed, or the refusal to send (RFC 6750 §3 for the challenges).
// A principal that cannot see a bucket gets the 404 a missing bucket or stream gets, so a private
// bucket's existence is not revealed; one that can see it but lacks the scope gets 403.

import { protocolError, type ProtocolError } from "../protocol/errors";
import type { Access } from "./access";
import { reachesBucket, type Principal } from "./principal";
import { READ, scopeName, type Scope } from "./scopes";

export const REALM = 'Bearer realm="ursa"';

export function authorize(p: Principal, access: Access, publicRead: boolean): ProtocolError | null {
  if (access.kind === "open" || access.kind === "identify" || p.kind === "open") return null;
  // --public-read opens buckets to anyone, not server-wide figures.
  if (publicRead && access.scope === READ && access.kind !== "server") return null;
  if (p.kind === "anonymous") return missingToken();
  if (access.kind === "bucket" && !reachesBucket(p, access.bucket)) return concealed(access.conceal);
  if (access.kind === "server" && p.buckets !== null) return insufficientScope(access.scope, "a token limited to some buckets cannot use server-wide routes");
  if ((p.scopes & access.scope) === 0) return insufficientScope(access.scope, `this token lacks the ${scopeName(access.scope)} scope`);
  return null;
}

/** As a missing bucket or stream answers (bucket-routes.ts, protocol/read.ts). */
export function concealed(code: "STREAM_NOT_FOUND" | "BUCKET_NOT_FOUND"): ProtocolError {
  return code === "STREAM_NOT_FOUND" ? protocolError(code, "stream not found") : protocolError(code, "bucket not found");
}

export function missingToken(): ProtocolError {
  return protocolError("UNAUTHORIZED", "this server needs a bearer token: send Authorization: Bearer TOKEN (or ?access_token=TOKEN on a GET)", {
    wwwAuthenticate: REALM,
  });
}

export function invalidToken(description: string): ProtocolError {
  return protocolError("UNAUTHORIZED", description, { wwwAuthenticate: `${REALM}, error="invalid_token", error_description="${description}"` });
}

export function invalidRequest(description: string): ProtocolError {
  return protocolError("BAD_REQUEST", description, { wwwAuthenticate: `${REALM}, error="invalid_request", error_description="${description}"` });
}

function insufficientScope(scope: Scope, message: string): ProtocolError {
  return protocolError("INSUFFICIENT_SCOPE", message, { wwwAuthenticate: `${REALM}, error="insufficient_scope", scope="${scopeName(scope)}"` });
}
