// The HTTP ceiling: a trivial Bun.serve handler. It reads the request body and answers 204 for
// writes, and a small 200 for reads, so the harness can measure what this machine's loopback HTTP
// path allows with the same client. Run with Bun: bun bench/lib/ceiling-server.mjs
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 60,
  async fetch(req) {
    if (req.method === "POST" || req.method === "PUT") {
      await req.arrayBuffer();
      return new Response(null, { status: 204, headers: { "Stream-Next-Offset": "0000000000000000_0000000000000000" } });
    }
    return new Response("ok", { headers: { "Stream-Next-Offset": "0000000000000000_0000000000000000", "Stream-Up-To-Date": "true" } });
  },
});
console.log(`listening http://127.0.0.1:${server.port} data=none`);
process.on("SIGTERM", () => {
  server.stop(true);
  process.exit(0);
});
