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
import { Worker } from "node:worker_threads";
import { Conn } from "../lib/http.mjs";
import { cpuMeter } from "../lib/proc.mjs";
import { Samples, sleep } from "../lib/stats.mjs";

export const ATTACKS = ["none", "stalled-uploads", "trickle-bodies", "search", "catchup", "early-refusals"];
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

  // The attacker has a thread of its own, so its work (4 MiB bodies, 48 answers at once) never
  // delays the writer's timing in this one.
  const attacker = new Worker(new URL("./abuse-attacker.mjs", import.meta.url), { workerData: { url: server.url, attack: p.attack, paths: { probe, deep }, depth: DEPTH } });
  const attacked = new Promise((resolve, reject) => {
    attacker.once("message", resolve);
    attacker.once("error", reject);
  });
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
  attacker.postMessage("stop");
  const got = await attacked;
  await attacker.terminate();
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

