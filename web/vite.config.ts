import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig, type Plugin } from "vite";
import preact from "@preact/preset-vite";

/**
 * Writes a .br and a .gz beside every built file of 1 KiB or more, once at build time, so the
 * server picks one by Accept-Encoding and never compresses per request (server/http/console-routes.ts).
 */
function precompress(): Plugin {
  return {
    name: "ursa-precompress",
    apply: "build",
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|html|svg|json)$/.test(name)) continue;
        const path = join(options.dir!, name);
        const bytes = readFileSync(path);
        if (bytes.length < 1024) continue;
        writeFileSync(`${path}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }));
        writeFileSync(`${path}.gz`, gzipSync(bytes, { level: 9 }));
      }
    },
  };
}

// The console is served by the binary under /ui/, so assets are built for that base.
export default defineConfig({
  root: import.meta.dirname,
  base: "/ui/",
  plugins: [preact(), precompress()],
  build: { outDir: "dist", emptyOutDir: true },
  server: { proxy: { "^/(?!ui/)": "http://127.0.0.1:4437" } },
});
