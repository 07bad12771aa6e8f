// The three pitfalls of the prefix-count recipe, each explained in the seed's own words
// (conditional-writes.md, "Prefix-count compare-and-set").
import type { RacePitfalls } from "../../state/raceLab";

export const PITFALLS: { key: keyof RacePitfalls; title: string; rule: string; shows: string }[] = [
  {
    key: "seedingPut",
    title: "Seeding PUT",
    rule: "Create the stream with a PUT without Stream-Seq, so no value is stored and the first commit's 0 is accepted; a PUT that seeds a value can make the first commit answer 409 on every retry. A value above the true count, from a counting bug or a seeding PUT, is stored like any other. Every honest writer's count is then too small, and each of its retries answers 409.",
    shows: "The lab creates the stream with Stream-Seq 00000000000000000005. Every writer reads 0 events, commits 0, gets 409, reads on 0 new events, and retries 0 again: stuck.",
  },
  {
    key: "afterCommit",
    title: "Count after your own commit",
    rule: "Do not send the count after your own commit (the last position your events take). That is not a compare-and-set: with 3 events in the log, writer A appends 1 event with 4, and writer B, which also saw only 3, appends 2 events with 5. Both are accepted, and B's events were validated against a stale log.",
    shows: "Writers send n + their own events. A (1 event) and B (2 events) both read the same log; both commits are accepted and the verdict fails.",
  },
  {
    key: "shortRead",
    title: "Read cut short by max_bytes",
    rule: "The read must end at the tail. A read shortened by max_bytes can stop inside a commit, and a count taken there can beat the stored value without the writer having seen the rest of that commit.",
    shows: "Reads use max_bytes=1 (one message per response) and stop after the first response, without waiting for Stream-Up-To-Date: true.",
  },
];
