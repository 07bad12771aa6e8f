// The issue's targets, evaluated on best-of-rounds results (ursa durable vs reference in memory).
// pass is true/false, or null when a side is missing (for example no ursa binary yet).

const URSA = "ursa";
const REF = "ref-mem";

export function evaluateTargets(bests, runs) {
  const get = (caseId, server) => bests.find((b) => b.case === caseId && b.server === server && b.metrics);
  const cases = [...new Set(bests.map((b) => b.case))];
  const out = [];
  const add = (caseId, target, value, threshold, pass, note) => out.push({ case: caseId, target, value, threshold, pass, note });
  const ratio = (a, b) => (a && b && b > 0 ? a / b : null);
  const cmp = (v, ok) => (v == null || !Number.isFinite(v) ? null : ok(v));

  for (const id of cases) {
    const wl = bests.find((b) => b.case === id).workload;
    const u = get(id, URSA);
    const r = get(id, REF);
    const um = u?.metrics;
    const params = runs.find((x) => x.case === id)?.params ?? {};
    if (wl === "append" && params.writers < 100) {
      // A handful of writers (issue 20): one is held to the disk, more to the reference.
      const rr = ratio(um?.appendsPerS, r?.metrics.appendsPerS);
      // The least a durable append over HTTP costs here (HTTP, an append to a file, shared syncs),
      // beside ursa's share of it: how far the physical limit is, in the same run.
      const h = get(id, "http-sync-ceiling");
      const rh = ratio(um?.appendsPerS, h?.metrics.appendsPerS);
      const syncCeiling = h ? `Bun.serve + fdatasync ${Math.round(h.metrics.appendsPerS)}/s${rh === null ? "" : `, ursa ${Math.round(100 * rh)}% of it`}` : null;
      if (params.writers === 1) {
        const s = get(id, "fsync-ceiling");
        const rs = ratio(um?.appendsPerS, s?.metrics.appendsPerS);
        const notes = [s ? `${Math.round(s.metrics.appendsPerS)} syncs/s of ${s.metrics.recordBytes} B, ${(1000 * s.metrics.meanMs).toFixed(0)} µs each` : null, syncCeiling].filter(Boolean);
        add(id, "appends/s ≥ 75% of the fdatasync ceiling", rs, 0.75, cmp(rs, (v) => v >= 0.75), notes.length ? notes.join("; ") : undefined);
      } else {
        const floor = params.writers >= 16 ? 1 : 0.5;
        add(id, `appends/s ≥ ${floor.toFixed(1)}× reference (memory)`, rr, floor, cmp(rr, (v) => v >= floor), syncCeiling ?? undefined);
        if (params.writers >= 16) {
          const cpu = um?.serverCpuUsPerAppend;
          add(id, "server CPU ≤ 60 µs per append", cpu, 60, cmp(cpu, (v) => v <= 60));
        }
      }
      const ursaRuns = runs.filter((x) => x.case === id && x.server === URSA && x.metrics);
      const bad = ursaRuns.length ? ursaRuns.reduce((t, x) => t + x.metrics.totalNon2xx + x.metrics.errors, 0) : null;
      add(id, "zero non-2xx (all rounds)", bad, 0, cmp(bad, (v) => v === 0));
    } else if (wl === "append") {
      const f = get(id, "ref-file");
      const c = get(id, "ceiling");
      const rr = ratio(um?.appendsPerS, r?.metrics.appendsPerS);
      add(id, "appends/s ≥ 1.5× reference (memory)", rr, 1.5, cmp(rr, (v) => v >= 1.5));
      const rf = ratio(um?.appendsPerS, f?.metrics.appendsPerS);
      // The file-backed reference keeps 100 file handles; with more streams than that it evicts a
      // handle between write and fsync and answers 404 "handle not found". Its rate then counts
      // only the 2xx, so the ratio is not a fair comparison: report it without a verdict.
      const fBad = f ? f.metrics.totalNon2xx + f.metrics.errors : 0;
      add(id, "appends/s ≥ 15× reference (file)", rf, 15, fBad ? null : cmp(rf, (v) => v >= 15), fBad ? `reference (file) answered ${fBad} non-2xx` : undefined);
      const pr = um && r ? um.p99 / r.metrics.p99 : null;
      add(id, "p99 no worse than reference (memory)", pr, 1, cmp(pr, (v) => v <= 1), um && r ? `${um.p99.toFixed(2)} vs ${r.metrics.p99.toFixed(2)} ms` : undefined);
      const rc = ratio(um?.appendsPerS, c?.metrics.appendsPerS);
      add(id, "appends/s ≥ 50% of Bun.serve ceiling", rc, 0.5, cmp(rc, (v) => v >= 0.5));
      // Zero non-2xx over every ursa round, warm-up included, and no transport errors.
      const ursaRuns = runs.filter((x) => x.case === id && x.server === URSA && x.metrics);
      const bad = ursaRuns.length ? ursaRuns.reduce((t, x) => t + x.metrics.totalNon2xx + x.metrics.errors, 0) : null;
      add(id, "zero non-2xx (all rounds)", bad, 0, cmp(bad, (v) => v === 0));
      const cpu = um?.serverCpuUsPerAppend;
      add(id, "server CPU ≤ 40 µs per append", cpu, 40, cmp(cpu, (v) => v <= 40));
    } else if (wl === "cas") {
      const rr = ratio(um?.commitsPerS, r?.metrics.commitsPerS);
      add(id, "commits/s ≥ 1.0× reference (memory)", rr, 1, cmp(rr, (v) => v >= 1));
      for (const server of [URSA, REF]) {
        const rs = runs.filter((x) => x.case === id && x.server === server && x.metrics);
        if (!rs.length) continue;
        const ok = rs.every((x) => x.metrics.verified);
        add(id, `every log verifies (${server})`, rs.filter((x) => x.metrics.verified).length, rs.length, ok);
      }
      if (um) add(id, "every Stream-Seq 409 carries Stream-Last-Seq (ursa)", um.conflictsNoLastSeq, 0, um.conflictsNoLastSeq === 0);
    } else if (wl === "sse") {
      const subs = um?.subscribers ?? r?.metrics.subscribers;
      const limit = subs >= 1000 ? 40 : 15;
      add(id, `delivery p99 ≤ ${limit} ms`, um?.p99, limit, cmp(um?.p99, (v) => v <= limit));
      add(id, "writer held 50 events/s", um ? um.writerRate : null, 49, um ? um.writerHeld : null);
      const lost = um ? um.missing + um.duplicates + um.errors : null;
      add(id, "every subscriber got every event once", lost, 0, cmp(lost, (v) => v === 0));
      if (subs >= 1000) {
        // Not only the best round (issue 20): each round counts once, by its last attempt (the
        // rerun, where a disturbed run was rerun).
        const last = new Map();
        for (const x of runs) if (x.case === id && x.server === URSA) last.set(x.round, x);
        const rounds = [...last.values()];
        const held = rounds.filter((x) => x.metrics && x.metrics.writerHeld && x.metrics.p99 <= limit).length;
        const worst = Math.max(...rounds.map((x) => x.metrics?.p99 ?? Infinity));
        if (rounds.length) add(id, `every round: writer held 50 events/s and p99 ≤ ${limit} ms`, held, rounds.length, held === rounds.length, `worst p99 ${worst.toFixed(2)} ms`);
      }
    } else if (wl === "catchup") {
      const rr = ratio(um?.MBps, r?.metrics.MBps);
      add(id, "MB/s ≥ 2× reference (memory)", rr, 2, cmp(rr, (v) => v >= 2));
    } else if (wl === "longpoll") {
      const w = um?.waiters ?? r?.metrics.waiters;
      const limit = w > 1 ? 15 : 3;
      add(id, `wake-up p99 ≤ ${limit} ms`, um?.p99, limit, cmp(um?.p99, (v) => v <= limit));
      const bad = um ? um.errors + um.timeouts + um.wrongOffset : null;
      add(id, "no errors, timeouts or wrong offsets", bad, 0, cmp(bad, (v) => v === 0));
    } else if (wl === "append-batch") {
      if (um?.framed) add(id, "messages/s ≥ 150,000 (512 frames of 100 B, durable)", um.messagesPerS, 150_000, um.messagesPerS >= 150_000);
      for (const server of [URSA, REF]) {
        const rs = runs.filter((x) => x.case === id && x.server === server && x.metrics);
        if (!rs.length) continue;
        add(id, `every log verifies (${server})`, rs.filter((x) => x.metrics.verified).length, rs.length, rs.every((x) => x.metrics.verified));
      }
    } else if (wl === "bootstrap") {
      add(id, "MB/s ≥ 1,000 (1 GB/s)", um?.MBps, 1000, cmp(um?.MBps, (v) => v >= 1000));
      add(id, "server RSS growth < 64 MiB", um?.rssGrowthMiB, 64, cmp(um?.rssGrowthMiB, (v) => v < 64));
      add(id, "the answer verifies", um ? (um.verified ? 1 : 0) : null, 1, um ? um.verified : null, um && !um.verified ? um.verify.problems[0] : undefined);
    } else if (wl === "scale" && um) {
      add(id, "restart to the first 200 ≤ 1 s", um.restartMs, 1000, cmp(um.restartMs, (v) => v <= 1000));
      add(id, "idle RSS ≤ 300 MiB", um.rssIdleMiB, 300, cmp(um.rssIdleMiB, (v) => v <= 300));
      const page = Math.max(um.firstPageMs, um.lastPageMs);
      add(id, "a listing page ≤ 5 ms (first and last)", page, 5, cmp(page, (v) => v <= 5));
      add(id, "creates/s ≥ 5,000 (last tenth of the fill)", um.createPerSAtSize, 5000, cmp(um.createPerSAtSize, (v) => v >= 5000));
      add(id, "HEAD p99 ≤ 20 ms under forks, listings, JSON pages, catch-ups", um.headP99, 20, cmp(um.headP99, (v) => v <= 20));
      add(id, "no errors", um.errors, 0, um.errors === 0, um.errors ? um.errorSamples[0] : undefined);
    } else if (wl === "abuse") {
      const a = get(id, "ursa-capped")?.metrics;
      // A flood of refused 4 MiB bodies is read and dropped at the attacker's pace (bounded per
      // request, as nginx's lingering close is): a bandwidth flood, which no share can turn away.
      if (params.attack !== "early-refusals") add(id, "write p99 < 50 ms while one client attacks", a?.p99, 50, cmp(a?.p99, (v) => v < 50), a ? `max ${a.max.toFixed(1)} ms over ${a.writes} writes` : undefined);
      add(id, "no write refused or failed", a?.errors, 0, a ? a.errors === 0 : null, a?.errors ? a.errorSamples[0] : undefined);
    } else if (wl === "churn") {
      add(id, "RSS flat over delete/recreate cycles", um?.rssGrowthMiB, "≤ max(8 MiB, 10%)", um ? um.flat && um.errors === 0 : null, um ? `${um.rssSeriesMiB.join(" → ")} MiB` : undefined);
    }
    postgresTargets(id, wl, params, get, add, ratio, cmp);
  }
  return out;
}

/**
 * Issue 47: the PostgreSQL engine beside PostgreSQL's own ceiling (pgbench, one 256 B INSERT per
 * transaction, as many clients as writers) and the SQLite engine, in the same run.
 */
function postgresTargets(id, wl, params, get, add, ratio, cmp) {
  const pg = get(id, "ursa-pg")?.metrics;
  const pg2 = get(id, "ursa-pg2")?.metrics;
  if (wl === "append" && pg && (params.writers === 1 || params.writers === 16)) {
    const floor = params.writers === 1 ? 0.6 : 0.5;
    const clients = `${params.writers} client${params.writers > 1 ? "s" : ""}`;
    const ceiling = get(id, "pg-insert-ceiling")?.metrics;
    const r = ratio(pg.appendsPerS, ceiling?.appendsPerS);
    add(id, `PostgreSQL engine: appends/s ≥ ${floor}× pgbench (1 INSERT) at ${clients}`, r, floor, cmp(r, (v) => v >= floor), ceiling ? `${Math.round(pg.appendsPerS)} vs ${Math.round(ceiling.appendsPerS)}/s` : undefined);
    // The same line against UPDATE + INSERT transactions, closer to what an append must make durable.
    const shaped = get(id, "pg-ceiling")?.metrics;
    const rs = ratio(pg.appendsPerS, shaped?.appendsPerS);
    add(id, `PostgreSQL engine: appends/s ≥ ${floor}× pgbench (UPDATE + INSERT) at ${clients}`, rs, floor, cmp(rs, (v) => v >= floor), shaped ? `${Math.round(pg.appendsPerS)} vs ${Math.round(shaped.appendsPerS)}/s` : undefined);
    if (params.writers === 16) {
      const sqlite = get(id, URSA)?.metrics;
      const rq = ratio(pg.appendsPerS, sqlite?.appendsPerS);
      add(id, "PostgreSQL engine: appends/s ≥ 0.6× the SQLite engine", rq, 0.6, cmp(rq, (v) => v >= 0.6));
      const r2 = ratio(pg2?.appendsPerS, pg.appendsPerS);
      add(id, "2 PostgreSQL instances + HAProxy: appends/s ≥ 0.8× one", r2, 0.8, cmp(r2, (v) => v >= 0.8));
    }
  } else if (wl === "sse" && pg && pg.subscribers >= 1000) {
    add(id, "PostgreSQL engine: writer held 50 events/s", pg.writerRate, 49, pg.writerHeld);
    add(id, "PostgreSQL engine: delivery p99 ≤ 60 ms", pg.p99, 60, cmp(pg.p99, (v) => v <= 60));
  } else if (wl === "longpoll" && pg2) {
    add(id, "append on one PostgreSQL instance, long-poll on the other: wake p99 ≤ 20 ms", pg2.p99, 20, cmp(pg2.p99, (v) => v <= 20), pg2.crossInstance ? undefined : "not across instances");
  }
}
