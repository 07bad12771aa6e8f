// GET and PUT /{bucket}/{stream}/attrs (spec §2.11–§2.12). Neither renews the TTL, and a change
// moves no offset, ETag or read result.

import { MAX_ATTRS_BYTES, parseAttrs } from "../protocol/attrs";
import { isJsonType, parseContentType } from "../protocol/content-type";
import { fail, isProtocolError, ok, type Parsed } from "../protocol/errors";
import { checkAddressed } from "../protocol/read";
import { readBody } from "./body";
import type { BodyPacer } from "./body-pace";
import type { BodyHold } from "./body-budget";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { baseHeaders, H } from "./headers";
import type { StreamPath } from "../protocol/paths";
import { parseIncarnationHeader } from "./write-requests";

export async function getAttrs(deps: AppDeps, req: Request, path: StreamPath, head: boolean): Promise<Response> {
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const checked = checkAddressed(await deps.store.get(path.key), incarnation.value);
  if (isProtocolError(checked)) return renderError(checked);
  const h = baseHeaders();
  h.set(H.contentType, "application/json");
  h.set(H.incarnation, checked.incarnation);
  return new Response(head ? null : ((await deps.store.attrs(checked)) ?? "{}"), { status: 200, headers: h });
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export async function putAttrs(deps: AppDeps, req: Request, path: StreamPath): Promise<Response> {
  const hold = deps.bodies.hold();
  try {
    const parsed = await parseAttrsRequest(req, hold, deps.pacer);
    if (!parsed.ok) return renderError(parsed.error);
    const outcome = await deps.store.putAttrs(path.key, parsed.value.incarnation, parsed.value.attrs);
    if (isProtocolError(outcome)) return renderError(outcome);
    const h = baseHeaders();
    h.set(H.incarnation, outcome.state.incarnation);
    return new Response(null, { status: 204, headers: h });
  } finally {
    hold.release();
  }
}

async function parseAttrsRequest(req: Request, hold: BodyHold, pacer: BodyPacer): Promise<Parsed<{ incarnation: string | null; attrs: string | null }>> {
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return incarnation;
  const rawType = req.headers.get(H.contentType);
  if (rawType === null || rawType.trim() === "") return fail("MISSING_CONTENT_TYPE", "attributes are a JSON object: send Content-Type: application/json");
  const type = parseContentType(rawType);
  if (!type.ok) return type;
  if (!isJsonType(type.value)) return fail("INVALID_STREAM_ATTRS", `attributes are a JSON object, not ${type.value}`);
  // Past the 16 KiB limit the body is refused as attributes, not read on.
  const body = await readBody(req, MAX_ATTRS_BYTES, hold, pacer);
  if (!body.ok) {
    return body.error.code === "PAYLOAD_TOO_LARGE" ? fail("INVALID_STREAM_ATTRS", `attributes are larger than ${MAX_ATTRS_BYTES} bytes`) : body;
  }
  let text: string;
  try {
    text = utf8.decode(body.value);
  } catch {
    return fail("INVALID_STREAM_ATTRS", "attributes are not valid UTF-8");
  }
  const attrs = parseAttrs(text);
  return attrs.ok ? ok({ incarnation: incarnation.value, attrs: attrs.value }) : attrs;
}
