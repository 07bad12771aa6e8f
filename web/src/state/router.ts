// URL state. The console lives under /ui/; the path names the page and the selection
// (bucket, stream), the query holds filters and cursors, so any view can be linked and
// survives a reload.
import { signal } from "@preact/signals";

export const BASE = "/ui";

export type Route =
  | { name: "start"; query: URLSearchParams }
  | { name: "buckets"; query: URLSearchParams }
  | { name: "bucket"; bucket: string; query: URLSearchParams }
  | { name: "stream"; bucket: string; stream: string; query: URLSearchParams }
  | { name: "compose"; query: URLSearchParams }
  | { name: "timeline"; query: URLSearchParams }
  | { name: "race"; query: URLSearchParams }
  | { name: "outbox"; query: URLSearchParams }
  | { name: "incarnation"; query: URLSearchParams }
  | { name: "compaction"; query: URLSearchParams }
  | { name: "server"; query: URLSearchParams }
  | { name: "glossary"; query: URLSearchParams }
  | { name: "notfound"; query: URLSearchParams };

export function parseRoute(pathname: string, search: string): Route {
  const query = new URLSearchParams(search);
  let rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  if (rest.endsWith("/") && rest.length > 1) rest = rest.slice(0, -1);
  const seg = rest.split("/").filter(Boolean).map(decodeURIComponent);
  if (seg.length === 0) return { name: "start", query };
  if (seg[0] === "buckets" && seg.length === 1) return { name: "buckets", query };
  if (seg[0] === "server" && seg.length === 1) return { name: "server", query };
  if (seg[0] === "glossary" && seg.length === 1) return { name: "glossary", query };
  if (seg[0] === "b" && seg.length === 2) return { name: "bucket", bucket: seg[1]!, query };
  if (seg[0] === "s" && seg.length === 3) return { name: "stream", bucket: seg[1]!, stream: seg[2]!, query };
  if (seg[0] === "compose" && seg.length === 1) return { name: "compose", query };
  if (seg[0] === "timeline" && seg.length === 1) return { name: "timeline", query };
  if (seg[0] === "lab" && seg.length === 2 && (seg[1] === "race" || seg[1] === "outbox" || seg[1] === "incarnation" || seg[1] === "compaction"))
    return { name: seg[1], query };
  return { name: "notfound", query };
}

function withQuery(path: string, query?: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

const enc = encodeURIComponent;
export const links = {
  start: () => `${BASE}/`,
  buckets: (q?: { prefix?: string; after?: string }) => withQuery(`${BASE}/buckets`, q),
  server: () => `${BASE}/server`,
  /** The glossary, at one entry's anchor when `term` is given. */
  glossary: (term?: string) => `${BASE}/glossary${term ? `#term-${term}` : ""}`,
  bucket: (bucket: string, q?: Record<string, string | undefined>) => withQuery(`${BASE}/b/${enc(bucket)}`, q),
  stream: (bucket: string, stream: string, q?: Record<string, string | undefined>) =>
    withQuery(`${BASE}/s/${enc(bucket)}/${enc(stream)}`, q),
  compose: (target?: string, endpoint?: string) => withQuery(`${BASE}/compose`, { target, endpoint }),
  timeline: () => `${BASE}/timeline`,
  race: () => `${BASE}/lab/race`,
  outbox: () => `${BASE}/lab/outbox`,
  incarnation: () => `${BASE}/lab/incarnation`,
  compaction: () => `${BASE}/lab/compaction`,
};

const here = () => (typeof location !== "undefined" ? parseRoute(location.pathname, location.search) : parseRoute("/ui/", ""));
export const route = signal<Route>(here());

export function navigate(href: string, opts: { replace?: boolean } = {}): void {
  if (opts.replace) history.replaceState(null, "", href);
  else history.pushState(null, "", href);
  route.value = here();
}

/** Update some query parameters of the current URL without adding a history entry. */
export function setQuery(patch: Record<string, string | undefined>, opts: { push?: boolean } = { push: false }): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined || v === "") q.delete(k);
    else q.set(k, v);
  }
  const s = q.toString();
  navigate(`${location.pathname}${s ? `?${s}` : ""}`, { replace: !opts.push });
}

if (typeof window !== "undefined") window.addEventListener("popstate", () => (route.value = here()));
