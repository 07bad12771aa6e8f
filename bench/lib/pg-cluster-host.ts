// Run by bench/lib/pg.mjs under Bun (the bench runs under Node, which cannot load the
// TypeScript helper): starts a throwaway cluster with server/testing/pg-cluster.ts, prints
// {"url","dir","port"} as one line, creates a database per "create NAME" line read from stdin,
// answering each with its URL, and stops and removes the cluster when stdin closes.
import { createInterface } from "node:readline";
import { startPgCluster } from "../../server/testing/pg-cluster.ts";

const cluster = await startPgCluster();
process.stdout.write(JSON.stringify({ url: cluster.url, dir: cluster.dir, port: cluster.port }) + "\n");
for await (const line of createInterface({ input: process.stdin })) {
  const name = /^create ([a-z0-9_]+)$/.exec(line)?.[1];
  if (!name) continue;
  try {
    process.stdout.write(JSON.stringify({ url: await cluster.createDatabase(name) }) + "\n");
  } catch (error) {
    process.stdout.write(JSON.stringify({ error: String(error) }) + "\n");
  }
}
await cluster.stop();
