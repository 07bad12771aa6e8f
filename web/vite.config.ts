import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

// The console is served by the binary under /ui/, so assets are built for that base.
export default defineConfig({
  root: import.meta.dirname,
  base: "/ui/",
  plugins: [preact()],
  build: { outDir: "dist", emptyOutDir: true },
  server: { proxy: { "^/(?!ui/)": "http://127.0.0.1:4437" } },
});
