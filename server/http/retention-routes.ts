// PUT /{bucket}/{stream}/retention/{offset} and …/retention?record=N (spec §2.17): raise the
// retained floor. The rows below it are deleted behind the floor, off the request path.

import { isProtocolError } from "../protocol/errors";
import { formatOffset } from "../protocol/offsets";
import { targetOffset } from "../protocol/retention";
import type { AppDeps } from "./deps";
import { renderError } from "./error-map";
import { withNearestBoundaries } from "./nearest-boundaries";
import { baseHeaders, H } from "./headers";
import type { StreamPath } from "../protocol/paths";
import { parseResourceTarget } from "./resource-target";
import { parseIncarnationHeader } from "./write-requests";

export async function advanceRetention(deps: AppDeps, req: Request, path: StreamPath, arg: string | null): Promise<Response> {
  const target = parseResourceTarget(arg, req.url);
  if (!target.ok) return renderError(target.error);
  const incarnation = parseIncarnationHeader(req.headers);
  if (!incarnation.ok) return renderError(incarnation.error);
  const outcome = await deps.store.advanceRetention(path.key, target.value, incarnation.value);
  if (isProtocolError(outcome)) return renderError(await withNearestBoundaries(deps.store, path.key, targetOffset(target.value), outcome));
  const h = baseHeaders();
  h.set(H.retainedOffset, formatOffset(outcome.state.retained));
  h.set(H.incarnation, outcome.state.incarnation);
  return new Response(null, { status: 204, headers: h });
}
