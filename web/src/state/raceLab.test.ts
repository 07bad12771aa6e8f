import { describe, expect, test } from "bun:test";
import { padSeq } from "../api/streamSeq";
import { commitEvents, commitSeq, DEFAULT_RACE_CONFIG, foldCommit, foldRead, initialRace, nextAction, scheduleNext, type RaceConfig } from "./raceLab";
import { checkLog, raceLesson } from "./raceVerdict";
import { RaceRunner } from "./raceRunner";
import { fakeServer } from "./testing/fakeServer";
import type { Exchange } from "../api/types";

const cfg = (patch: Partial<RaceConfig> = {}, pitfalls: Partial<RaceConfig["pitfalls"]> = {}): RaceConfig => ({
  ...DEFAULT_RACE_CONFIG,
  ...patch,
  pitfalls: { ...DEFAULT_RACE_CONFIG.pitfalls, ...pitfalls },
});

function runner(config: RaceConfig) {
  const server = fakeServer();
  let i = 0;
  const r = new RaceRunner(server.transport, { bucket: "lab1", newStreamName: () => `race-${++i}`, pause: async () => {}, random: () => 0 });
  r.config.value = config;
  return { r, server };
}

/** Lane as short strings: "read n=0", "commit 0 → 204", "commit 0 → 409 last=0", "read-on k=1". */
function lane(r: RaceRunner, w: number): string[] {
  return r.state.value!.writers[w]!.entries.map((e) =>
    e.kind === "commit"
      ? `commit ${Number(e.seq)} → ${e.status}${e.lastSeq !== undefined ? ` last=${Number(e.lastSeq)}` : ""}`
      : e.kind === "read"
        ? `read n=${e.n}`
        : `read-on k=${e.events}`,
  );
}

const exchange = (method: "GET" | "POST", status: number, headers: [string, string][], body: string, request: [string, string][] = [], requestBody?: string, code?: string): Exchange => ({
  id: "1",
  origin: "",
  request: { method, path: "/lab1/s", headers: request, body: requestBody },
  startedAt: 10,
  durationMs: 2,
  response: { status, statusText: "", headers, bodyText: body },
  errorCode: code,
});

describe("race lab lanes", () => {
  test("a read counts n and the lane says the writer commits with its count zero-padded next", () => {
    let st = initialRace(cfg(), "/lab1/s");
    expect(nextAction(st, 0)).toEqual({ kind: "read" });
    st = foldRead(st, 0, exchange("GET", 200, [["stream-next-offset", "0000000000000000_0000000000000030"], ["stream-up-to-date", "true"]], "[1,2,3]"), false);
    expect(st.writers[0]!.n).toBe(3);
    expect(nextAction(st, 0)).toEqual({ kind: "commit", seq: padSeq(3) });
    expect(commitEvents("A", 0, padSeq(3), 1, 3)).toEqual([{ w: "A", c: 0, e: 0, of: 1, seq: padSeq(3), n: 3 }]);
  });

  test("a read that goes on past a capped response extends the same entry", () => {
    let st = initialRace(cfg(), "/lab1/s");
    st = foldRead(st, 0, exchange("GET", 200, [["stream-next-offset", "t1"]], "[1]"), false);
    st = foldRead(st, 0, exchange("GET", 200, [["stream-next-offset", "t2"], ["stream-up-to-date", "true"]], "[2,3]"), true);
    const [entry] = st.writers[0]!.entries;
    expect(st.writers[0]!.entries).toHaveLength(1);
    expect(entry).toMatchObject({ kind: "read", events: 3, n: 3, responses: 2, to: "t2", upToDate: true });
  });

  test("only a 409 with Stream-Last-Seq leads to read-on; any other 409 fails the writer", () => {
    let st = initialRace(cfg(), "/lab1/s");
    st = foldRead(st, 0, exchange("GET", 200, [["stream-next-offset", "t0"], ["stream-up-to-date", "true"]], "[]"), false);
    const commit = (status: number, headers: [string, string][], code?: string) => exchange("POST", status, headers, "", [["Stream-Seq", padSeq(0)]], "[{}]", code);
    const conflicted = foldCommit(st, 0, commit(409, [["stream-last-seq", padSeq(0)]], "STREAM_SEQ_CONFLICT"));
    expect(conflicted.writers[0]!.phase).toBe("read-on");
    expect(nextAction(conflicted, 0)).toEqual({ kind: "read-on" });
    const closed = foldCommit(st, 0, commit(409, [["stream-closed", "true"]], "STREAM_CLOSED"));
    expect(closed.writers[0]!.phase).toBe("failed");
  });

  test("the after-commit pitfall sends n + own events", () => {
    expect(commitSeq(3, 1, { seedingPut: false, afterCommit: true, shortRead: false })).toBe(padSeq(4));
    expect(commitSeq(3, 2, { seedingPut: false, afterCommit: true, shortRead: false })).toBe(padSeq(5));
    expect(commitSeq(3, 2, { seedingPut: false, afterCommit: false, shortRead: false })).toBe(padSeq(3));
  });

  test("round-robin schedule skips finished writers", () => {
    const st = initialRace(cfg({ writers: 3 }), "/x/y");
    expect(scheduleNext(st)).toBe(0);
    const done = { ...st, turn: 1, writers: st.writers.map((w, i) => (i === 1 ? { ...w, phase: "done" as const } : w)) };
    expect(scheduleNext(done)).toBe(2);
  });
});

describe("race lab against an in-memory server", () => {
  test("step by step: B loses the race, reads on k events and retries with n + k; verdict passes", async () => {
    const { r } = runner(cfg());
    await r.runSteps(0);
    expect(lane(r, 0)).toEqual(["read n=0", "commit 0 → 204", "read n=1", "commit 1 → 204"]);
    expect(lane(r, 1)).toEqual([
      "read n=0",
      "commit 0 → 409 last=0",
      "read-on k=1",
      "commit 1 → 409 last=1",
      "read-on k=1",
      "commit 2 → 204",
      "read n=4",
      "commit 4 → 204",
    ]);
    expect(r.verdict.value!.ok).toBe(true);
    expect(r.verdict.value!.commits.map((c) => [c.writer, c.before, Number(c.seq)])).toEqual([
      ["A", 0, 0],
      ["A", 1, 1],
      ["B", 2, 2],
      ["B", 4, 4],
    ]);
  });

  test("continuous: every writer finishes and the verdict passes, with four writers", async () => {
    const { r } = runner(cfg({ writers: 4, commitsPerWriter: 3 }));
    await r.runContinuous(0);
    const st = r.state.value!;
    expect(st.writers.every((w) => w.phase === "done")).toBe(true);
    expect(r.verdict.value!.ok).toBe(true);
    expect(r.verdict.value!.commits.length).toBe(12);
    expect(r.verdict.value!.events).toBe(3 * (1 + 2 + 3 + 2));
  });

  test("after-commit pitfall: both stale writers are accepted and the verdict fails", async () => {
    const { r } = runner(cfg({ commitsPerWriter: 1 }, { afterCommit: true }));
    await r.runSteps(0);
    expect(lane(r, 0)).toEqual(["read n=0", "commit 1 → 204"]);
    expect(lane(r, 1)).toEqual(["read n=0", "commit 2 → 204"]);
    const v = r.verdict.value!;
    expect(v.ok).toBe(false);
    expect(v.commits.map((c) => c.ok)).toEqual([false, false]);
    // A committed first, on an empty log: it saw the whole log, only its value was wrong.
    expect(v.commits.map((c) => c.stale)).toEqual([false, true]);
    expect(v.commits[0]!.why).toContain("it saw the whole log, but Stream-Seq 1 counts its own 1 event too");
    expect(v.commits[1]!.why).toContain("the writer had read 0 events, the log holds 1 event before it");
    expect(v.summary).toBe("1 of 2 commits was validated against a stale log. 1 more saw the whole log but sent a Stream-Seq other than the events before it.");
  });

  test("seeding PUT pitfall: every retry answers 409 and the writers end stuck", async () => {
    const { r } = runner(cfg({}, { seedingPut: true }));
    await r.runSteps(0);
    const st = r.state.value!;
    expect(r.setup.value!.request.headers).toContainEqual(["Stream-Seq", padSeq(5)]);
    expect(st.writers.map((w) => w.phase)).toEqual(["stuck", "stuck"]);
    expect(lane(r, 0).filter((e) => e.startsWith("commit"))).toEqual(["commit 0 → 409 last=5", "commit 0 → 409 last=5", "commit 0 → 409 last=5"]);
    expect(r.verdict.value!.ok).toBe(false);
    expect(r.verdict.value!.summary).toContain("No commit was accepted");
  });

  test("short-read pitfall: a count taken inside a commit beats the stored value", async () => {
    const { r } = runner(cfg({}, { shortRead: true }));
    await r.runSteps(0);
    const entries = r.state.value!.writers.flatMap((w) => w.entries);
    expect(entries.some((e) => e.kind !== "commit" && !e.upToDate)).toBe(true);
    expect(r.verdict.value!.ok).toBe(false);
    expect(r.verdict.value!.commits.some((c) => c.stale && c.why!.includes("did not reach the tail"))).toBe(true);
  });

  test("the lesson names the 409s a passing run survived, and each pitfall's own rule", async () => {
    const pass = runner(cfg());
    await pass.r.runSteps(0);
    const st = pass.r.state.value!;
    const lost = st.writers.reduce((n, w) => n + w.conflicts, 0);
    expect(lost).toBeGreaterThan(0);
    const lesson = raceLesson(pass.r.verdict.value!, st);
    expect(lesson.ok).toBe(true);
    expect(lesson.happened).toContain(`${lost} commit${lost === 1 ? "" : "s"} lost a race with 409`);
    expect(lesson.prevented).toContain("built on a stale read");
    expect(lesson.remember).toContain("n + k");
    const seeded = runner(cfg({}, { seedingPut: true }));
    await seeded.r.runSteps(0);
    expect(raceLesson(seeded.r.verdict.value!, seeded.r.state.value!).remember).toContain("without Stream-Seq");
    const after = runner(cfg({ commitsPerWriter: 1 }, { afterCommit: true }));
    await after.r.runSteps(0);
    expect(raceLesson(after.r.verdict.value!, after.r.state.value!).remember).toBe("Send the count of events before your commit, never the count after it.");
  });

  test("New run deletes the last run's stream; a reset while a run is going drops its late answers", async () => {
    const server = fakeServer();
    let i = 0;
    let cleaned = 0;
    const r = new RaceRunner(server.transport, { bucket: "lab1", newStreamName: () => `race-${++i}`, pause: async () => {}, random: () => 0, cleanup: async () => void cleaned++ });
    r.config.value = cfg({ commitsPerWriter: 5 });
    const running = r.runContinuous(0);
    r.stop();
    r.reset();
    await running;
    expect(cleaned).toBe(2);
    expect(r.state.value).toBeNull();
    expect(r.verdict.value).toBeNull();
  });

  test("each run uses a fresh stream", async () => {
    const { r, server } = runner(cfg({ commitsPerWriter: 1 }));
    await r.runContinuous(0);
    await r.runContinuous(0);
    expect([...server.streams.keys()]).toEqual(["/lab1/race-1", "/lab1/race-2"]);
  });
});

describe("verdict", () => {
  const ev = (w: string, c: number, e: number, of: number, seq: number, n = seq) => ({ w, c, e, of, seq: padSeq(seq), n });
  test("passes when every commit's Stream-Seq equals the events before it", () => {
    expect(checkLog([ev("A", 0, 0, 2, 0), ev("A", 0, 1, 2, 0), ev("B", 0, 0, 1, 2)]).ok).toBe(true);
  });
  test("flags a commit whose writer counted too few events as stale", () => {
    const v = checkLog([ev("A", 0, 0, 2, 0), ev("A", 0, 1, 2, 0), ev("B", 0, 0, 1, 1)]);
    expect(v.ok).toBe(false);
    expect(v.commits[1]!.stale).toBe(true);
    expect(v.summary).toBe("1 of 2 commits was validated against a stale log.");
  });
  test("the first commit on an empty log is never stale, whatever value it sent", () => {
    // The after-commit pitfall with four writers: A's first commit sends 1 on an empty log.
    const v = checkLog([ev("A", 0, 0, 1, 1, 0), ev("B", 0, 0, 2, 2, 0), ev("B", 0, 1, 2, 2, 0), ev("C", 0, 0, 3, 3, 0), ev("C", 0, 1, 3, 3, 0), ev("C", 0, 2, 3, 3, 0)]);
    expect(v.commits.map((c) => c.stale)).toEqual([false, true, true]);
    expect(v.summary).toBe("2 of 3 commits were validated against a stale log. 1 more saw the whole log but sent a Stream-Seq other than the events before it.");
  });
  test("an empty log or a stuck writer is not a pass", () => {
    expect(checkLog([]).ok).toBe(false);
    expect(checkLog([ev("A", 0, 0, 1, 0)], ["B"]).ok).toBe(false);
  });
});
