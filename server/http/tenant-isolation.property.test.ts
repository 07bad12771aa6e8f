// Tenants stay apart (docs/security.md): for random buckets, random streams, random forks across
// buckets (some of whose sources are then deleted) and tokens limited to random buckets, nothing a
// token reads through any introspection route names a bucket or stream it cannot see, and the
// counts it is given are those of its own buckets.

import { expect, test } from "bun:test";
import fc from "fast-check";
import { NO_AUTH } from "../auth/authenticator";
import { ALL_SCOPES, READ } from "../auth/scopes";
import type { BucketPage, ServerInfo } from "../introspection-api";
import { harness } from "../testing/app-harness";

const ADMIN = "admin-0123456789abcdef";
const tokenOf = (i: number) => `reader-${i}-0123456789abcdef`;

interface World {
  /** Streams per bucket, by index. */
  streams: number[];
  /** Forks: [bucket, stream] of the source, made in the fork's bucket. */
  forks: { from: [number, number]; into: number }[];
  /** Forks whose source is then deleted (kept soft while forks share it). */
  deleteSource: boolean[];
  /** Each token's buckets, by index. */
  tokens: number[][];
}

const world: fc.Arbitrary<World> = fc.integer({ min: 2, max: 4 }).chain((buckets) =>
  fc.record({
    streams: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: buckets, maxLength: buckets }),
    forks: fc.array(fc.record({ from: fc.tuple(fc.nat(buckets - 1), fc.nat(2)), into: fc.nat(buckets - 1) }), { maxLength: 6 }),
    deleteSource: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    tokens: fc.array(fc.uniqueArray(fc.nat(buckets - 1), { maxLength: buckets - 1 }), { minLength: 1, maxLength: 3 }),
  }),
);

// Names no answer could contain by chance: none is a substring of another or of any JSON key.
const bucketName = (b: number) => `zq${b}bkt`;
const streamName = (b: number, s: number) => `zq${b}strm${s}x`;

test("no introspection answer names a bucket or stream the token cannot see", async () => {
  await fc.assert(
    fc.asyncProperty(world, async (w) => {
      const tokens = w.tokens.map((buckets, i) => ({ token: tokenOf(i), scopes: READ, buckets: new Set(buckets.map(bucketName)) }));
      const h = harness({ security: { auth: { ...NO_AUTH, tokens: [{ token: ADMIN, scopes: ALL_SCOPES, buckets: null }, ...tokens] } } });
      const as = (token: string, method: string, path: string, headers: Record<string, string> = {}) =>
        h.request(method, path, { headers: { authorization: `Bearer ${token}`, ...headers }, body: method === "PUT" ? "hello" : undefined });
      try {
        const paths: string[] = [];
        for (const [b, n] of w.streams.entries()) {
          for (let s = 0; s < n; s++) {
            const path = `/${bucketName(b)}/${streamName(b, s)}`;
            expect((await as(ADMIN, "PUT", path, { "content-type": "text/plain" })).status).toBe(201);
            paths.push(path);
          }
        }
        for (const [i, f] of w.forks.entries()) {
          const [sb, ss] = f.from;
          if (ss >= w.streams[sb]!) continue;
          const source = `/${bucketName(sb)}/${streamName(sb, ss)}`;
          const path = `/${bucketName(f.into)}/zq${f.into}fork${i}x`;
          if ((await as(ADMIN, "PUT", path, { "content-type": "text/plain", "stream-forked-from": source })).status !== 201) continue;
          paths.push(path);
          if (w.deleteSource[i]) await as(ADMIN, "DELETE", source);
        }

        for (const t of tokens) {
          // A hidden bucket's name, and the start of every stream name in it.
          const hidden = [...w.streams.keys()].filter((b) => !t.buckets.has(bucketName(b))).flatMap((b) => [bucketName(b), `zq${b}strm`, `zq${b}fork`]);
          const answers: string[] = [];
          const read = async (path: string) => {
            const r = await as(t.token, "GET", path);
            const text = await r.text();
            answers.push(`${path} -> ${text}`);
            return { status: r.status, text };
          };
          const info = JSON.parse((await read("/__ursula/api/info")).text) as ServerInfo;
          const buckets = JSON.parse((await read("/__ursula/api/buckets?limit=1000")).text) as BucketPage;
          await read("/__ursula/api/whoami");
          await read("/__ursula/api/buckets?sort=readers&limit=1000");
          let visibleStreams = 0;
          for (const b of w.streams.keys()) {
            const listing = await read(`/__ursula/api/buckets/${bucketName(b)}/streams?limit=1000`);
            if (t.buckets.has(bucketName(b))) visibleStreams += (JSON.parse(listing.text) as { total: number }).total;
            else expect(listing.status).toBe(404);
            await read(`/${bucketName(b)}/streams`);
          }
          for (const path of paths) {
            for (const sub of ["", "/forks", "/messages", "/search?q=h", "/readers"]) await read(`/__ursula/api/streams${path}${sub}`);
          }
          expect(info.buckets).toBe(buckets.total);
          expect(buckets.buckets.map((b) => b.bucket_id).sort()).toEqual([...t.buckets].sort());
          expect(info.streams).toBe(visibleStreams);
          for (const answer of answers) for (const name of hidden) expect(answer.slice(answer.indexOf(" -> "))).not.toContain(name);
        }
      } finally {
        await h.close();
      }
    }),
    { numRuns: 25 },
  );
});
