// "This step in code": for every lab step, what a user writes for it with ursa-client. One table
// per lab, keyed by the step's part in the plot; the lab definitions take their step's line from
// here and the views only show it, so the code a step shows is in one place and names the same
// package calls the lab makes.

export const RACE_CODE = {
  setup: `const s = new UrsaStream(url);
await s.create({ contentType: "application/json" }); // PUT, never a Stream-Seq`,
  read: `const writer = new PrefixCountWriter(url);
await writer.commit((log) => decide(log));
// commit() first reads to the tail (until Stream-Up-To-Date: true) and counts n = log.n`,
  commit: `await writer.commit((log) => {
  validate(log.events); // all events before it
  return events; // Stream-Seq = log.n
});`,
  "read-on": `await writer.commit((log) => decide(log));
// on a 409 with Stream-Last-Seq (StreamSeqConflict) commit() reads on from where it
// stopped, counts the k new events and calls your function again with log.n = n + k;
// any other refusal is thrown`,
} as const;

export const OUTBOX_CODE = {
  create: `const s = new UrsaStream(url);
await s.create({ contentType: "application/json" });`,
  publish: `const p = new OutboxPublisher(url, { producerId, epoch });
await p.publish(fact, [body]); // Producer-Id/Epoch/Seq + Stream-Seq = fact -> "published"`,
  lost: `await p.publish(2, [body]); // throws: the answer never arrived
// (by default publish() resends it with the same producer headers itself)`,
  retry: `await p.publish(2, [body]); // same Producer-Seq: 204 duplicate, written once -> "published"`,
  takeover: `const next = new OutboxPublisher(url, { producerId, epoch: 1 }); // Producer-Seq from 0`,
  already: `const outcome = await next.publish(2, [body]); // -> "already-published"
if (outcome === "already-published") fact = next.lastPublished! + 1;`,
  fenced: `try { await p.publish(4, [body]); }
catch (e) { if (e instanceof ProducerFenced) stopPublishing(); else throw e; }`,
  read: `const { messages } = await new UrsaStream(url).readToTail();`,
} as const;

export const INCARNATION_CODE = {
  create: `const s = new UrsaStream(url);
await s.create({ contentType: "application/json" });
s.incarnation; // the token, sent on every later request`,
  append: `await s.append([{ step: "first life" }]); // carries Stream-Incarnation`,
  delete: `await new UrsaStream(url).delete();`,
  recreate: `await other.create({ contentType: "application/json" }); // a new incarnation`,
  replayAppend: `try { await s.append([event]); }
catch (e) { if (e instanceof IncarnationMismatch) e.incarnation; /* the new token */ }`,
  replayRead: `await s.readToTail(); // throws IncarnationMismatch`,
  replayHead: `await s.head(); // throws IncarnationMismatch`,
  missingRead: `await new UrsaStream(missingUrl, { incarnation }).readToTail(); // throws StreamNotFound`,
  missingPut: `await new UrsaStream(missingUrl, { incarnation }).create(); // throws IncarnationMismatch`,
  missingHead: `await new UrsaStream(missingUrl).head(); // throws StreamNotFound`,
  startOver: `s.startOver(error.incarnation); // discard derived state, keep the new token
const { messages } = await s.readToTail();`,
  appendNew: `await s.append([{ step: "second life" }]);`,
} as const;

export const COMPACTION_CODE = {
  create: `await new UrsaStream(url).create({ contentType: "application/json" });`,
  commit: `const a = new PrefixCountWriter(url);
await a.commit(() => events); // reads to the tail, Stream-Seq = log.n`,
  compactRead: `const c = await compact(a, (events) => fold(events));
// compact() first reads the writer on to the tail: a.n, a.nextOffset`,
  compactPublish: `// inside compact(): publishes { count: a.n, state } at a.nextOffset
await a.stream.publishSnapshot(offset, { count, state });`,
  compactRetain: `// inside compact(): the floor goes up to the snapshot, no further
await a.stream.retain(offset);`,
  publishNoCount: `// the pitfall, which compact() never makes: a snapshot without the count
await a.stream.publishSnapshot(a.nextOffset, { state });`,
  resumeNoCount: `// the pitfall: resumeFromSnapshot() refuses a snapshot without a count, so
// this writer counts only the messages after it
const boot = await s.bootstrap();
const b = new PrefixCountWriter(s, { start: { count: 0, events: boot.messages, offset: boot.nextOffset } });`,
  recoverNoCount: `// readFromSnapshot() refuses a snapshot without a count; bootstrap still hands it out
const { snapshot, messages } = await new UrsaStream(url).bootstrap();`,
  resume: `const { writer: b, state } = await resumeFromSnapshot(url);
b.n; // the snapshot's count + the messages after it`,
  bCommit: `await b.commit(() => [{ n: 6 }]); // Stream-Seq = b.n`,
  read410: `await new UrsaStream(url).readToTail(); // throws StreamGone (410)`,
  recover: `const { state, count, events } = await readFromSnapshot(url);`,
} as const;
