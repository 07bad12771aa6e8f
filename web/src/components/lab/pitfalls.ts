// The three pitfalls of the prefix-count recipe, each in the console's words, with Ursula's
// rule behind it ("Prefix-count compare-and-set") one click away.
import type { RacePitfalls } from "../../state/raceLab";
import type { CwRuleId } from "../../learn/conditional-writes";

export const PITFALLS: { key: keyof RacePitfalls; title: string; rule: string; cwRules: CwRuleId[]; shows: string }[] = [
  {
    key: "seedingPut",
    title: "Seeding PUT",
    rule: "Create a prefix-count stream without Stream-Seq. A PUT that stores a value above the true count leaves every honest writer's count too small: each of its retries answers 409.",
    cwRules: ["prefix-1", "prefix-seeded"],
    shows: "The lab creates the stream with Stream-Seq 00000000000000000005. Every writer reads 0 events, commits 0, gets 409, reads on 0 new events, and retries 0 again: stuck.",
  },
  {
    key: "afterCommit",
    title: "Count after your own commit",
    rule: "Send the count from before your commit, not after it. Counting your own events lets two writers that read the same log both be accepted, so one of them committed on a stale log.",
    cwRules: ["prefix-after-commit"],
    shows: "Writers send n + their own events. A (1 event) and B (2 events) both read the same log; both commits are accepted and the verdict fails.",
  },
  {
    key: "shortRead",
    title: "Read cut short by max_bytes",
    rule: "Read on until Stream-Up-To-Date: true. A read cut short by max_bytes can stop inside another writer's commit, and a count taken there can still beat the stored value.",
    cwRules: ["prefix-short-read", "prefix-3"],
    shows: "Reads use max_bytes=1 (one message per response) and stop after the first response, without waiting for Stream-Up-To-Date: true.",
  },
];
