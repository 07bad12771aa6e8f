// The abuse workload's attacker (abuse.mjs), in a worker thread of its own: one client on
// 127.0.0.2 running one attack until told to stop, then reporting its requests and the statuses
// they were answered.
import net from "node:net";
import { parentPort, workerData } from "node:worker_threads";
import { Conn } from "../lib/http.mjs";
import { sleep } from "../lib/stats.mjs";

const ATTACKER = "127.0.0.2";
const stop = { now: false };
parentPort.on("message", () => (stop.now = true));
parentPort.postMessage(await attack(workerData, workerData.paths, stop));

/** Runs the attack until `stop.now`; counts its requests and the statuses it was answered. */
async function attack(p, paths, stop) {
  const server = { url: p.url };
  const answers = {};
  let requests = 0;
  const count = (status) => {
    requests++;
    answers[status] = (answers[status] ?? 0) + 1;
  };
  const loops = (n, body) => Promise.all(Array.from({ length: n }, async () => {
    while (!stop.now) await body();
  }));
  switch (p.attack) {
    case "none":
      while (!stop.now) await sleep(50);
      break;
    case "stalled-uploads":
      await loops(72, () => rawUpload(server.url, paths.probe, stop, null, count));
      break;
    case "trickle-bodies":
      await loops(72, () => rawUpload(server.url, paths.probe, stop, 500, count));
      break;
    case "search":
    case "catchup": {
      const field = `${"a.".repeat(p.depth - 1)}b`;
      const path = p.attack === "search" ? `/__ursula/api/streams${paths.deep}/search?field=${field}&value=7` : `${paths.deep}?offset=-1`;
      await Promise.all(Array.from({ length: 48 }, async () => {
        const c = new Conn(server.url, { idleReconnectMs: 60_000, localAddress: ATTACKER });
        try {
          while (!stop.now) count((await c.request("GET", path, "", null, { discardBody: true }).catch(() => ({ status: "error" }))).status);
        } finally {
          c.close();
        }
      }));
      break;
    }
    case "early-refusals": {
      const body = Buffer.alloc(4 * 2 ** 20, 0x20);
      await loops(16, async () => {
        const c = new Conn(server.url, { localAddress: ATTACKER });
        try {
          count((await c.request("PUT", `${paths.probe}/attrs`, "Content-Type: application/json\r\n", body, { discardBody: true })).status);
        } catch {
          count("reset");
        } finally {
          c.close();
        }
      });
      break;
    }
    default:
      throw new Error(`unknown attack ${p.attack}`);
  }
  return { requests, answers };
}

/**
 * One upload on a raw socket from the attacker's address that declares 100,000 bytes and sends
 * none (`everyMs` null) or a byte every `everyMs`, until the server answers or closes, or the run ends.
 */
function rawUpload(url, path, stop, everyMs, count) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port), localAddress: ATTACKER });
    let answer = "";
    let timer;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(timer);
      clearInterval(watch);
      socket.destroy();
      count(answer === "" ? "closed" : answer.slice(9, 12));
      resolve();
    };
    const watch = setInterval(() => stop.now && end(), 100);
    socket.on("data", (d) => (answer += d.toString("latin1")));
    socket.on("close", end);
    socket.on("error", () => undefined);
    socket.on("connect", () => {
      socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n`);
      if (everyMs !== null) timer = setInterval(() => socket.write("x"), everyMs);
    });
  });
}
