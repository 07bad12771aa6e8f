// Process accounting from /proc: CPU seconds (utime+stime) and resident memory.
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

let clkTck = 100;
try {
  clkTck = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
} catch {}

/** CPU seconds used so far by process `pid` ("self" for this process, all threads included). */
export function cpuSeconds(pid = "self") {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may contain spaces.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // rest[0] is field 3 (state); utime is field 14, stime field 15.
  return (Number(rest[11]) + Number(rest[12])) / clkTck;
}

/**
 * cpuSeconds, or null for a process already gone: a PostgreSQL backend whose connection closed
 * between being listed and being read (a pg-ceiling run failed with ENOENT on /proc/PID/stat).
 */
function cpuSecondsIfAlive(pid) {
  try {
    return cpuSeconds(pid);
  } catch {
    return null;
  }
}

/** Resident set size in KiB, or NaN once the process is gone. */
export function rssKiB(pid = "self") {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Machine-wide CPU seconds (all cores) from /proc/stat: `busy` is user+nice+system; `steal` is
 * time the hypervisor ran something else while this machine had work for the core.
 */
function machineTimes() {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]; // "cpu  user nice system idle iowait irq softirq steal ..."
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    return { busy: (f[0] + f[1] + f[2]) / clkTck, steal: (f[7] ?? NaN) / clkTck };
  } catch {
    return { busy: NaN, steal: NaN };
  }
}

export const machineCpuSeconds = () => machineTimes().busy;

/**
 * Start a CPU meter for the server (a pid, or a list of them) and for this (client) process. otherCpuPct is the rest of
 * the machine's user+system time in the window: other processes competing for the 2 cores
 * (a concurrent build or test run shows up here and makes the run's figures suspect).
 * stealPct is the time the host took from this virtual machine's cores in the window, in
 * percent of one core: it slows every process here without any of them showing it.
 */
export function cpuMeter(serverPids) {
  // A server may be several processes (two ursa instances, PostgreSQL's backends): their sum.
  // Given a function, it is asked again at the end, and a process it names then that was not
  // there at the start (a backend for a new connection) counts all its CPU time.
  const pidsNow = () => [typeof serverPids === "function" ? serverPids() : serverPids].flat();
  const t0 = performance.now();
  const s0 = new Map();
  for (const pid of pidsNow()) {
    const seconds = cpuSecondsIfAlive(pid);
    if (seconds !== null) s0.set(pid, seconds);
  }
  const c0 = cpuSeconds("self");
  const m0 = machineTimes();
  const serverSince = () => {
    let sum = 0;
    for (const pid of new Set([...s0.keys(), ...pidsNow()])) {
      const seconds = cpuSecondsIfAlive(pid);
      if (seconds !== null) sum += seconds - (s0.get(pid) ?? 0);
    }
    return sum;
  };
  return () => {
    const wall = (performance.now() - t0) / 1000;
    const server = serverSince();
    const client = cpuSeconds("self") - c0;
    const m1 = machineTimes();
    const other = Math.max(0, m1.busy - m0.busy - server - client);
    return {
      wallS: wall,
      serverCpuS: server,
      clientCpuS: client,
      serverCpuPct: (100 * server) / wall,
      clientCpuPct: (100 * client) / wall,
      otherCpuPct: (100 * other) / wall,
      stealPct: (100 * (m1.steal - m0.steal)) / wall,
    };
  };
}

export const CLK_TCK = clkTck;
