// abuse: one client attacks while another writes. The writer, on 127.0.0.1, appends to its own
// stream every `writeEveryMs` and times each append; the attacker, one client on 127.0.0.2, runs
// one attack for the whole window, starting again whatever the server cuts or refuses:
//   none              nothing (the baseline)
//   stalled-uploads   72 connections that declare a 100,000-byte body and send none of it
//   trickle-bodies    72 connections that send their body a byte every 500 ms
//   search            48 field searches at once, over 4 MiB of 120-deep JSON, again and again
//   catchup           48 catch-ups of the same 4 MiB at once, again and again
//   early-refusals    16 loops of 4 MiB attribute bodies, refused from their headers
// The server is started with --max-connections 64 (the kind `ursa-capped`), so the connection
// attacks reach its cap. Reported: the writer's p50/p99/max and errors, and what the attacker got.
import net from "node:net";
import { Conn } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";
import { Samples, sleep } from "../lib/stats.mjs";

export const ATTACKS = ["none", "stalled-uploads", "trickle-bodies", "search", "catchup", "early-refusals"];
const ATTACKER = "127.0.0.2";
const DEPTH = 120;

/** A JSON message nested DEPTH deep, padded to about 4 KiB, as the red team's search target was. */
function deepMessage(i) {
  let inner = JSON.stringify({ b: i, pad: "x".repeat(3300) });
  for (let d = 1; d < DEPTH; d++) inner = `{"a":${inner}}`;
  return inner;
}

/** p: { attack, writeEveryMs, warmupMs, durationMs, targetMiB, runId } */
export async function run(server, p) {
  const base = `/abuse-${p.runId}`;
  const probe = `${base}/probe`;
  const deep = `${base}/deep`;
  const setup = new Conn(server.url, { idleReconnectMs: 60_000 });
  const ok = (res, what) => {
    if (res.status < 200 || res.status > 299) throw new Error(`${what}: HTTP ${res.status}`);
  };
  ok(await setup.request("PUT", probe, "Content-Type: text/plain\r\n", null), "create probe");
  if (p.attack === "search" || p.attack === "catchup") {
    ok(await setup.request("PUT", deep, "Content-Type: application/json\r\n", null), "create deep");
    const perPost = 64;
    for (let sent = 0; sent * 4096 < p.targetMiB * 2 ** 20; sent += perPost) {
      const body = `[${Array.from({ length: perPost }, (_, i) => deepMessage(sent + i)).join(",")}]`;
      ok(await setup.request("POST", deep, "Content-Type: application/json\r\n", body, { discardBody: true }), "fill deep");
    }
  }
  setup.close();

  const stop = { now: false };
  const attacker = attack(server, p, { probe, deep }, stop);
  await sleep(p.warmupMs);

  const writer = new Conn(server.url, { idleReconnectMs: 60_000 });
  const lat = new Samples(4096);
  const errorSamples = [];
  let errors = 0;
  const meter = cpuMeter(server.cpuPids());
  const deadline = performance.now() + p.durationMs;
  while (performance.now() < deadline) {
    const t0 = performance.now();
    try {
      const res = await writer.request("POST", probe, "Content-Type: text/plain\r\n", "w", { discardBody: true });
      if (res.status !== 204) {
        errors++;
        if (errorSamples.length < 5) errorSamples.push(`append HTTP ${res.status}`);
      } else lat.add(performance.now() - t0);
    } catch (error) {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(String(error.message ?? error));
    }
    const left = p.writeEveryMs - (performance.now() - t0);
    if (left > 0) await sleep(left);
  }
  const cpu = meter();
  stop.now = true;
  const got = await attacker;
  writer.close();
  const s = lat.summary();
  return {
    attack: p.attack,
    writes: s.n,
    p50: s.p50,
    p99: s.p99,
    max: s.max,
    errors,
    errorSamples,
    attackRequests: got.requests,
    attackAnswers: got.answers,
    serverCpuPct: cpu?.serverCpuPct,
    clientCpuPct: cpu?.clientCpuPct,
    otherCpuPct: cpu?.otherCpuPct,
    stealPct: cpu?.stealPct,
    windowS: cpu?.wallS,
  };
}

/** Runs the attack until `stop.now`; counts its requests and the statuses it was answered. */
async function attack(server, p, paths, stop) {
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
      const field = `${"a.".repeat(DEPTH - 1)}b`;
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
