// Starts the Node reference server (@durable-streams/server DurableStreamTestServer) on
// 127.0.0.1 with a kernel-picked port and prints "listening <url>" like ursa does.
// Usage: node bench/lib/ref-server.mjs [--data DIR] [--long-poll-timeout-ms N]
import { DurableStreamTestServer } from "@durable-streams/server";

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const options = { port: 0, host: "127.0.0.1" };
if (opt("--data")) options.dataDir = opt("--data");
if (opt("--long-poll-timeout-ms")) options.longPollTimeout = Number(opt("--long-poll-timeout-ms"));
const server = new DurableStreamTestServer(options);
await server.start();
console.log(`listening ${server.url} data=${options.dataDir ?? "memory"}`);
const shutdown = async () => {
  await server.stop();
  process.exit(0);
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
