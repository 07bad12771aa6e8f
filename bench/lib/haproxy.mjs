// HAProxy with the documented configuration (docs/haproxy.cfg) in front of ursa instances, for
// the ursa-pg2 server kind. The e2e tests start the same file (e2e/balancer.ts).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";

const CONFIG = resolve(import.meta.dirname, "..", "..", "docs", "haproxy.cfg");
const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((p) => existsSync(p));

export const haproxyAvailable = () => HAPROXY !== undefined;

const freePort = () =>
  new Promise((done, fail) => {
    const server = createServer().once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });

const answers = (url) =>
  fetch(`${url}/__ursula/health`).then(
    (res) => res.arrayBuffer().then(() => res.status === 200),
    () => false,
  );

/** Resolves with { url, log(), stop() } once the balancer answers through to an instance. */
export async function startHaproxy([a, b]) {
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const env = { ...process.env, URSA_LB_BIND: `127.0.0.1:${port}`, URSA_A: new URL(a).host, URSA_B: new URL(b).host };
    const child = spawn(HAPROXY, ["-db", "-f", CONFIG], { env, stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    child.stdout.on("data", (d) => (log += d));
    child.stderr.on("data", (d) => (log += d));
    const exited = new Promise((r) => child.once("exit", r));
    const url = `http://127.0.0.1:${port}`;
    for (const until = Date.now() + 10_000; child.exitCode === null && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      if (await answers(url)) {
        return {
          url,
          log: () => log,
          async stop() {
            if (child.exitCode === null) child.kill("SIGTERM");
            await exited;
          },
        };
      }
    }
    child.kill("SIGKILL");
    await exited;
    if (attempt >= 4) throw new Error(`haproxy did not start:\n${log}`);
  }
}
