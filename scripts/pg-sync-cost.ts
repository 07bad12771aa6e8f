// What synchronous replication costs a commit, on this machine: a primary and a streaming
// standby (server/testing/pg-cluster.ts), and pgbench committing one 256 B INSERT per
// transaction at 1 and 16 clients under each setting docs/multi-instance.md discusses. Prints a
// markdown table of transactions/s. Run it on a quiet machine; the figures mean nothing under load.
//
//   node_modules/.bin/bun scripts/pg-sync-cost.ts [--seconds 10] [--clients 1,16]

import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { asClusterUser, pgBinDir, PG_SUPERUSER, STANDBY_NAME, startPgCluster, startStandby } from "../server/testing/pg-cluster.ts";

const { values } = parseArgs({ options: { seconds: { type: "string", default: "10" }, clients: { type: "string", default: "1,16" } } });
const seconds = Number(values.seconds);
const clients = values.clients.split(",").map(Number);

/** Each setting: the standbys a commit waits for, and how far (synchronous_commit). */
const SETTINGS = [
  { name: "asynchronous standby (synchronous_commit = on, no synchronous_standby_names)", names: "", commit: "on" },
  { name: `synchronous_commit = remote_write, synchronous_standby_names = '${STANDBY_NAME}'`, names: STANDBY_NAME, commit: "remote_write" },
  { name: `synchronous_commit = on (remote flush), synchronous_standby_names = '${STANDBY_NAME}'`, names: STANDBY_NAME, commit: "on" },
  { name: `synchronous_commit = remote_apply, synchronous_standby_names = '${STANDBY_NAME}'`, names: STANDBY_NAME, commit: "remote_apply" },
];

const primary = await startPgCluster();
const standby = await startStandby(primary);
try {
  await primary.psql("ursa", "CREATE TABLE appends (id bigserial PRIMARY KEY, data bytea NOT NULL)");
  const script = join(primary.dir, "append.sql");
  writeFileSync(script, "INSERT INTO appends (data) VALUES (decode(repeat('ab', 256), 'hex'));\n");
  const rows: string[] = [];
  for (const setting of SETTINGS) {
    await primary.psql("ursa", `ALTER SYSTEM SET synchronous_standby_names = '${setting.names}'`);
    await primary.psql("ursa", `ALTER SYSTEM SET synchronous_commit = '${setting.commit}'`);
    await primary.psql("ursa", "SELECT pg_reload_conf()");
    const figures = clients.map((c) => {
      const argv = asClusterUser([join(pgBinDir(), "pgbench"), "-h", primary.dir, "-p", String(primary.port), "-U", PG_SUPERUSER, "-n", "-c", String(c), "-j", "1", "-T", String(seconds), "-f", script, "ursa"]);
      const out = spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
      const tps = /tps = ([\d.]+)/.exec(out.stdout)?.[1];
      if (!tps) throw new Error(`pgbench failed: ${out.stdout}${out.stderr}`);
      return Math.round(Number(tps)).toLocaleString("en");
    });
    rows.push(`| ${setting.name} | ${figures.join(" | ")} |`);
  }
  console.log(`| setting | ${clients.map((c) => `${c} client${c === 1 ? "" : "s"}, commits/s`).join(" | ")} |`);
  console.log(`|---|${clients.map(() => "---|").join("")}`);
  for (const row of rows) console.log(row);
} finally {
  await standby.stop();
  await primary.stop();
}
