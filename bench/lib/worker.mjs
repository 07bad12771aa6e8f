// Generic worker entry: import the workload module and run one part of it.
import { parentPort, workerData } from "node:worker_threads";
import { Phases } from "./pool.mjs";

const { module, fn, params, index, parts, sab } = workerData;
try {
  const mod = await import(module);
  const ctx = { index, parts, phases: new Phases(sab), ready: () => parentPort.postMessage({ type: "ready" }) };
  const result = await mod[fn](params, ctx);
  parentPort.postMessage({ type: "result", result });
} catch (err) {
  parentPort.postMessage({ type: "error", error: err?.stack ?? String(err) });
}
