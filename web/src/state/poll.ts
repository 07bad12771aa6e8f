// Work repeated every few seconds while the page is on screen; a hidden tab asks the server
// nothing. Used by the stream page (its record, its fork family), its live readers, a bucket's
// subscriptions and the server page.

/** Calls `tick` every `everyMs` while the document is visible; the returned function stops it. */
export function whileVisible(everyMs: number, tick: () => void): () => void {
  const timer = setInterval(() => {
    if (typeof document === "undefined" || document.visibilityState === "visible") tick();
  }, everyMs);
  return () => clearInterval(timer);
}
