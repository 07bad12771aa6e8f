// A page on an origin of its own: an empty HTML page at every path, on 127.0.0.1 and a
// kernel-picked port, for browser tests that need a page that is not the console (whose CSP lets
// it talk only to its own server) and not ursa's origin.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface PageServer {
  port: number;
  close(): Promise<void>;
}

export async function pageServer(): Promise<PageServer> {
  const server = http.createServer((_req, res) => res.writeHead(200, { "Content-Type": "text/html" }).end("<!doctype html><title>page</title><body>page</body>"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(() => r())) };
}
