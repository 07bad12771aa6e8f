// Leaving a lab ends its run: when the page changes, a lab that is no longer shown stops, resets
// and deletes its streams, unless the new page is one of those streams (each lab links to its
// stream so it can be looked at). Closing the page deletes them with keepalive fetches, best
// effort; the streams' TTL removes whatever that misses.
import { effect, untracked } from "@preact/signals";
import { route, type Route } from "./router";
import type { LabStreams } from "./labStreams";

export interface LabSite {
  /** The page the lab lives on. */
  route: Route["name"];
  streams: LabStreams;
  /** Stop what is running and start a new run (which deletes the streams). */
  leave(): void;
}

/** Is `r` somewhere else than the lab and the pages of its streams? */
export function isAway(site: LabSite, r: Route): boolean {
  if (r.name === site.route) return false;
  if (r.name === "stream") return !site.streams.owns(`/${encodeURIComponent(r.bucket)}/${encodeURIComponent(r.stream)}`);
  return true;
}

export function watchLabs(sites: LabSite[]): () => void {
  let shown = untracked(() => route.value);
  const stop = effect(() => {
    const r = route.value;
    untracked(() => {
      for (const s of sites) if (isAway(s, r) && (shown.name === s.route || s.streams.owned.value.size > 0)) s.leave();
    });
    shown = r;
  });
  const unload = () => {
    for (const s of sites) s.streams.discardOnUnload();
  };
  addEventListener("pagehide", unload);
  return () => {
    stop();
    removeEventListener("pagehide", unload);
  };
}
