// The embedded console at /ui/. `bun build --compile --asset web/dist` puts the Vite output at
// /$bunfs/root/dist inside the binary; outside it (bun server/main.ts, tests) we read web/dist.

import { Hono } from "hono";
import { join, normalize } from "node:path";
import { baseHeaders } from "./headers";
import { empty } from "./respond";

export const WEB_ROOT = import.meta.dir.startsWith("/$bunfs/") ? join(import.meta.dir, "dist") : join(import.meta.dir, "..", "..", "web", "dist");

export function consoleRoutes(webRoot: string): Hono {
  const app = new Hono();
  app.get("/", (c) => c.redirect("/ui/", 302));
  app.get("/ui", (c) => c.redirect("/ui/", 301));
  app.get("/ui/*", async (c) => {
    // normalize() on an absolute path cannot climb above "/", so no request escapes webRoot.
    const rel = normalize(c.req.path.slice("/ui".length));
    let file = Bun.file(join(webRoot, rel));
    if (rel.endsWith("/") || !(await file.exists())) {
      if (rel.startsWith("/assets/")) return empty(404);
      // Console routes are client-side: every other path is the app itself.
      file = Bun.file(join(webRoot, "index.html"));
    }
    const h = baseHeaders(rel.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-cache");
    h.set("Content-Type", file.type);
    return new Response(file, { headers: h });
  });
  return app;
}
