// The recipes of Ursula's documentation (Ursula v0.9.0, Conditional Writes) as code a user can
// copy. Each file cites the sentence behind every step; e2e/recipes.test.ts runs them against the binary.
//
//   http.ts                  header names, zero-padded Stream-Seq, read to the tail
//   prefix-count-writer.ts   "Prefix-count compare-and-set": several writers, one validated log
//   outbox-publisher.ts      "Publishing committed facts (outbox)": both guards, takeover, fencing
//   incarnation-client.ts    "Guarding against a recreated stream (Stream-Incarnation)"
//   bootstrap.ts             GET …/bootstrap: the snapshot and the messages after it (multipart/mixed)
//   compaction.ts            prefix-count step 3: keep the event count in every snapshot, trim, resume
//
// Which to use (Conditional Writes, its closing list):
//   - several writers extend one log and each commit is validated against everything before it:
//     prefix-count Stream-Seq;
//   - one logical publisher, possibly failing over between owners, must not publish a fact twice
//     or out of order: commit-number Stream-Seq plus producer headers (outbox);
//   - retries of the same append must not be written twice: producer headers;
//   - any client that keeps offsets, producer state or a cache across requests: Stream-Incarnation,
//     combined with the others;
//   - independent appends (event logging): none of these, just POST.
// There is no precondition on the stream's tail offset (If-Match).

export * from "./http.ts";
export * from "./prefix-count-writer.ts";
export * from "./outbox-publisher.ts";
export * from "./incarnation-client.ts";
export * from "./bootstrap.ts";
export * from "./compaction.ts";
