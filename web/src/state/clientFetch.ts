// The fetch the console hands ursa-client. The package decides every request (its recipes are
// what the labs teach); this carries each one through a Transport, so it is recorded as an
// Exchange on the timeline and in the lab's step exactly as it was sent and answered, and gives
// the package back a Response built from that record.
import type { Exchange, HeaderList, Method } from "../api/types";
import type { FetchLike } from "../api/ursaClient";
import type { Transport } from "./transport";

async function bodyText(body: RequestInit["body"]): Promise<string | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof Blob) return body.text();
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return new TextDecoder().decode(body as ArrayBuffer);
  throw new TypeError("the console's fetch sends text, bytes and Blobs only");
}

function headerList(headers: RequestInit["headers"]): HeaderList {
  if (!headers) return [];
  if (headers instanceof Headers || Array.isArray(headers)) return [...new Headers(headers)] as HeaderList;
  return Object.entries(headers);
}

const NO_BODY = new Set([101, 204, 205, 304]);

/** The Response the package reads, from the recorded exchange; no answer at all is a network error, as fetch's. */
export function responseOf(ex: Exchange): Response {
  const res = ex.response;
  if (!res) throw new TypeError(ex.networkError ?? "no response");
  const body = ex.request.method === "HEAD" || NO_BODY.has(res.status) ? null : (res.bodyBytes ?? res.bodyText);
  return new Response(body as BodyInit | null, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/**
 * A fetch for ursa-client over `transport`. Stream URLs are console paths ("/bucket/stream"), so
 * the request goes wherever the console's own requests go, with its bearer token. A bootstrap
 * keeps its bytes: the multipart parts are split on them.
 */
export function transportFetch(transport: Transport): FetchLike {
  return async (input, init = {}) => {
    const ex = await transport(
      { method: (init.method ?? "GET") as Method, path: input, headers: headerList(init.headers), body: await bodyText(init.body) },
      { keepBytes: /\/bootstrap(\?|$)/.test(input), signal: init.signal ?? undefined },
    );
    return responseOf(ex);
  };
}
