// Whether a browser sent a request from another origin, decided as Go 1.25's
// net/http.CrossOriginProtection decides it. Sec-Fetch-Site is set by every current browser and
// cannot be forged by a page; older browsers are judged by Origin against the request's host. A
// request with neither header is from a non-browser client (curl, the official client in Node)
// or a same-origin one, and passes.

import { H } from "../headers";

/** `url` is the request URL, whose `host[:port]` ends at `pathStart`. */
export function isCrossOrigin(headers: Headers, url: string, pathStart: number): boolean {
  const site = headers.get(H.secFetchSite);
  if (site === "same-origin" || site === "none") return false;
  // same-site counts as cross-origin: another port of localhost is another program.
  if (site !== null) return true;
  const origin = headers.get(H.origin);
  if (origin === null) return false;
  // Host carries no scheme: an https page behind a TLS proxy has the same host as the http URL
  // ursa sees. Go fails open on the scheme for the same reason.
  const sep = origin.indexOf("://");
  return sep < 0 || origin.slice(sep + 3).toLowerCase() !== url.slice(url.indexOf("//") + 2, pathStart);
}
