// HAProxy (Debian's haproxy) in front of ursa instances, with the configuration users are told
// to copy (docs/haproxy.cfg), so the documented setup is the tested one. The documented file
// sends each stream's writes to one instance (a hash of the path) and spreads reads; the races
// are tested under the worst case instead, the same file with writes round-robin too, where two
// consecutive writes of one stream reach different instances.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { freePort } from "../server/testing/pg-cluster.ts";
import { dirname, join, resolve } from "node:path";

export const HAPROXY_CONFIG = resolve(import.meta.dirname, "..", "docs", "haproxy.cfg");
const HAPROXY = ["/usr/sbin/haproxy", "/usr/bin/haproxy"].find((p) => existsSync(p));

export interface Balancer {
  url: string;
  log(): string;
  stop(): Promise<void>;
}

/** Host:port of an instance's URL, as a `server` line wants it. */
function hostPort(url: string): string {
  return new URL(url).host;
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/__ursula/health`);
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** "documented": docs/haproxy.cfg as it is; "round-robin": each request to the next instance. */
export type Balancing = "documented" | "round-robin";

/**
 * docs/haproxy.cfg names two instances, URSA_A and URSA_B. More instances get one more `server`
 * line each (URSA_C, …), as the page tells users to add, in a copy of the file.
 */
function configFor(instances: number, balancing: Balancing): string {
  if (instances === 2 && balancing === "documented") return HAPROXY_CONFIG;
  let lines = readFileSync(HAPROXY_CONFIG, "utf8").split("\n");
  // Each backend lists the instances: after each `server b` line, one more per instance.
  lines = lines.flatMap((line) => {
    if (!line.trim().startsWith("server b ")) return [line];
    const extra = Array.from({ length: instances - 2 }, (_, i) => {
      const letter = String.fromCharCode(99 + i);
      return line.replace("server b", `server ${letter}`).replace("URSA_B", `URSA_${letter.toUpperCase()}`).replace("reads/b", `reads/${letter}`);
    });
    return [line, ...extra];
  });
  if (balancing === "round-robin") {
    const balance = lines.findIndex((l) => l.trim() === "balance uri");
    if (balance < 0) throw new Error("docs/haproxy.cfg has no `balance uri` line to replace");
    lines[balance] = "    balance roundrobin";
    lines = lines.filter((l) => !l.trim().startsWith("hash-type"));
  }
  const path = join(mkdtempSync(join(tmpdir(), "ursa-haproxy-")), "haproxy.cfg");
  writeFileSync(path, lines.join("\n"));
  return path;
}

export async function startBalancer(instances: string[], balancing: Balancing): Promise<Balancer> {
  if (!HAPROXY) throw new Error("haproxy is not installed: apt-get install haproxy (scripts/system-deps.sh, which npm test runs first, installs it)");
  const config = configFor(instances.length, balancing);
  // A port found free can be taken before HAProxy binds it: try a few.
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const servers = Object.fromEntries(instances.map((url, i) => [`URSA_${String.fromCharCode(65 + i)}`, hostPort(url)]));
    const env = { ...process.env, URSA_LB_BIND: `127.0.0.1:${port}`, ...servers };
    const child: ChildProcess = spawn(HAPROXY, ["-db", "-f", config], { env, stdio: ["ignore", "pipe", "pipe"] });
    let log = "";
    child.stdout!.on("data", (d) => (log += d));
    child.stderr!.on("data", (d) => (log += d));
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    const url = `http://127.0.0.1:${port}`;
    const until = Date.now() + 10_000;
    while (child.exitCode === null && !(await answers(url)) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    if (child.exitCode === null && Date.now() < until) {
      return {
        url,
        log: () => log,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited;
          if (config !== HAPROXY_CONFIG) rmSync(dirname(config), { recursive: true, force: true });
        },
      };
    }
    child.kill("SIGKILL");
    await exited;
    if (attempt >= 4) throw new Error(`haproxy did not start:\n${log}`);
  }
}
