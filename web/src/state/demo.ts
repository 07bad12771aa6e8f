// The demo bucket: one click on an empty server writes a few streams that give every guard
// something to show, each step an ordinary request sent through the exchange client (so all of
// them, 409s, a 403 and a 412 included, are in the attempt timeline with copy-as-curl):
//   prefix-count-log  prefix-count commits, a lost race and its retry, and a stale resend;
//   outbox            facts published by a producer at epoch 0 (one retried: a duplicate), then
//                     by a new owner at epoch 1;
//   recreated         deleted and recreated, then written to with the old token;
//   prefix-count-fork a fork of the log after its first commit.
import type { Exchange, ProtocolRequest } from "../api/types";
import { getHeader } from "../api/headers";
import { padSeq } from "../api/streamSeq";
import { ScriptedLab, type ScriptStep, type StepResult } from "./scriptedLab";
import type { Transport } from "./transport";

export const DEMO_STREAMS = ["prefix-count-log", "outbox", "recreated", "prefix-count-fork"] as const;

export interface DemoCtx {
  bucket: string;
  /** The log's tail after its first commit, where the fork starts. */
  firstCommitEnd?: string;
  oldToken?: string;
  newToken?: string;
}

const JSON_TYPE: [string, string] = ["Content-Type", "application/json"];
const path = (ctx: DemoCtx, stream: string) => `/${ctx.bucket}/${stream}`;

function expect(status: number, ok: string, also?: (ctx: DemoCtx, ex: Exchange) => void): Pick<ScriptStep<DemoCtx>, "expectStatus" | "after"> {
  return {
    expectStatus: status,
    after: (ctx, ex): StepResult => {
      const got = ex.response?.status;
      if (got !== status) return { ok: false, halt: true, note: `Expected ${status}, got ${got ?? ex.networkError} ${ex.errorCode ?? ""}`.trim() };
      also?.(ctx, ex);
      return { ok: true, note: ok };
    },
  };
}

function post(stream: string, body: unknown[], headers: [string, string][]): (ctx: DemoCtx) => ProtocolRequest {
  return (ctx) => ({ method: "POST", path: path(ctx, stream), headers: [JSON_TYPE, ...headers], body: JSON.stringify(body) });
}

const producer = (epoch: number, seq: number): [string, string][] => [
  ["Producer-Id", "outbox-publisher"],
  ["Producer-Epoch", String(epoch)],
  ["Producer-Seq", String(seq)],
];

export function demoSteps(): ScriptStep<DemoCtx>[] {
  const log = "prefix-count-log";
  return [
    {
      actor: log,
      title: "Create the log without Stream-Seq",
      explain: "So no value is stored and the first commit's 0 is accepted.",
      build: (ctx) => ({ method: "PUT", path: path(ctx, log), headers: [JSON_TYPE] }),
      ...expect(201, "Created."),
    },
    {
      actor: log,
      title: "Writer A commits 2 events with Stream-Seq 0",
      explain: "A read the empty log: n = 0.",
      build: post(log, [{ by: "A", step: 1 }, { by: "A", step: 2 }], [["Stream-Seq", padSeq(0)]]),
      ...expect(204, "Accepted: the stream now stores Stream-Seq …0.", (ctx, ex) => (ctx.firstCommitEnd = getHeader(ex.response?.headers, "stream-next-offset"))),
    },
    {
      actor: log,
      title: "Writer B, which also read 0 events, commits with Stream-Seq 0: 409",
      explain: "Another writer committed first; the 409 carries Stream-Last-Seq …0.",
      build: post(log, [{ by: "B", step: 1 }], [["Stream-Seq", padSeq(0)]]),
      ...expect(409, "409 STREAM_SEQ_CONFLICT, Stream-Last-Seq …0: B lost the race."),
    },
    {
      actor: log,
      title: "B reads on: 2 new events, so n + k = 2",
      explain: "Read on from where it stopped, to the tail.",
      build: (ctx) => ({ method: "GET", path: `${path(ctx, log)}?offset=-1&consistency=leader`, headers: [] }),
      ...expect(200, "2 events: B retries with 2."),
    },
    {
      actor: log,
      title: "B retries with Stream-Seq 2",
      explain: "Its commit is now checked against the whole log.",
      build: post(log, [{ by: "B", step: 1 }], [["Stream-Seq", padSeq(2)]]),
      ...expect(204, "Accepted."),
    },
    {
      actor: log,
      title: "A reads 3 events and commits 1 more with Stream-Seq 3",
      explain: "n = 3.",
      build: post(log, [{ by: "A", step: 3 }], [["Stream-Seq", padSeq(3)]]),
      ...expect(204, "Accepted: the stored value is …3."),
    },
    {
      actor: log,
      title: "A resends that commit, thinking its answer was lost: 409",
      explain: "Its own value is stale: the append it resends already stored …3.",
      build: post(log, [{ by: "A", step: 3 }], [["Stream-Seq", padSeq(3)]]),
      ...expect(409, "409 with Stream-Last-Seq …3, the value A itself stored: nothing is written twice."),
    },
    {
      actor: "outbox",
      title: "Create the outbox stream",
      explain: "Stream-Seq will number the facts; producer headers make retries safe.",
      build: (ctx) => ({ method: "PUT", path: path(ctx, "outbox"), headers: [JSON_TYPE] }),
      ...expect(201, "Created."),
    },
    ...[1, 2, 3].map<ScriptStep<DemoCtx>>((fact) => ({
      actor: "outbox",
      title: `The owner at epoch 0 publishes fact ${fact} (Producer-Seq ${fact - 1}, Stream-Seq ${fact})`,
      explain: "Both guards on each append.",
      build: post("outbox", [{ fact, epoch: 0 }], [...producer(0, fact - 1), ["Stream-Seq", padSeq(fact)]]),
      ...expect(200, `Fact ${fact} published.`),
    })),
    {
      actor: "outbox",
      title: "Its answer to fact 3 lost, the owner sends fact 3 again (epoch 0, Producer-Seq 2): duplicate",
      explain: "A retry with the same Producer-Id, Producer-Epoch and Producer-Seq is answered as a duplicate: nothing is written twice.",
      build: post("outbox", [{ fact: 3, epoch: 0 }], [...producer(0, 2), ["Stream-Seq", padSeq(3)]]),
      ...expect(204, "204, a duplicate: fact 3 is on the stream once."),
    },
    {
      actor: "outbox",
      title: "A new owner at epoch 1 republishes fact 3: 409, already published",
      explain: "On takeover Producer-Seq starts again at 0; the Stream-Seq 409 with Stream-Last-Seq means “already published”.",
      build: post("outbox", [{ fact: 3, epoch: 1 }], [...producer(1, 0), ["Stream-Seq", padSeq(3)]]),
      ...expect(409, "409, Stream-Last-Seq …3: skip to fact 4 with the same Producer-Seq."),
    },
    {
      actor: "outbox",
      title: "The new owner publishes fact 4 (epoch 1, Producer-Seq 0)",
      explain: "Accepted, so epoch 0 is fenced from now on.",
      build: post("outbox", [{ fact: 4, epoch: 1 }], [...producer(1, 0), ["Stream-Seq", padSeq(4)]]),
      ...expect(200, "Fact 4 published at epoch 1."),
    },
    {
      actor: "outbox",
      title: "The old owner tries fact 4 at epoch 0: 403",
      explain: "A stale epoch is fenced.",
      build: post("outbox", [{ fact: 4, epoch: 0 }], [...producer(0, 3), ["Stream-Seq", padSeq(4)]]),
      ...expect(403, "403 PRODUCER_EPOCH_STALE."),
    },
    {
      actor: "recreated",
      title: "Create the stream and keep its token",
      explain: "Every successful response that addresses a stream, except a DELETE, carries Stream-Incarnation.",
      build: (ctx) => ({ method: "PUT", path: path(ctx, "recreated"), headers: [JSON_TYPE] }),
      ...expect(201, "Created.", (ctx, ex) => (ctx.oldToken = getHeader(ex.response?.headers, "stream-incarnation"))),
    },
    {
      actor: "recreated",
      title: "Append with the kept token",
      explain: "The token matches the stream.",
      build: (ctx) => post("recreated", [{ life: 1 }], [["Stream-Incarnation", ctx.oldToken ?? ""]])(ctx),
      ...expect(204, "Accepted."),
    },
    {
      actor: "recreated",
      title: "Delete it",
      explain: "The first incarnation ends.",
      build: (ctx) => ({ method: "DELETE", path: path(ctx, "recreated"), headers: [] }),
      ...expect(204, "Deleted."),
    },
    {
      actor: "recreated",
      title: "Recreate it at the same URL",
      explain: "A new incarnation: new token, no Stream-Seq, no producers.",
      build: (ctx) => ({ method: "PUT", path: path(ctx, "recreated"), headers: [JSON_TYPE] }),
      ...expect(201, "Recreated.", (ctx, ex) => (ctx.newToken = getHeader(ex.response?.headers, "stream-incarnation"))),
    },
    {
      actor: "recreated",
      title: "Append with the old token: 412",
      explain: "The stream the client knew is gone; the 412 carries the new token.",
      build: (ctx) => post("recreated", [{ life: 1, late: true }], [["Stream-Incarnation", ctx.oldToken ?? ""]])(ctx),
      ...expect(412, "412 STREAM_INCARNATION_MISMATCH: nothing was applied."),
    },
    {
      actor: "recreated",
      title: "Append with the new token",
      explain: "Start over from the new stream, with its token.",
      build: (ctx) => post("recreated", [{ life: 2 }], [["Stream-Incarnation", ctx.newToken ?? ""]])(ctx),
      ...expect(204, "Accepted."),
    },
    {
      actor: "prefix-count-fork",
      title: "Fork the log after A's first commit",
      explain: "The fork shares the log's first 2 events and goes its own way from there.",
      build: (ctx) => ({
        method: "PUT",
        path: path(ctx, "prefix-count-fork"),
        headers: [JSON_TYPE, ["Stream-Forked-From", path(ctx, log)], ["Stream-Fork-Offset", ctx.firstCommitEnd ?? ""]],
      }),
      ...expect(201, "Forked."),
    },
    {
      actor: "prefix-count-fork",
      title: "Commit to the fork with Stream-Seq 2",
      explain: "A fork starts without a stored Stream-Seq: its own first commit counts the 2 events it inherited.",
      build: post("prefix-count-fork", [{ by: "fork", step: 1 }], [["Stream-Seq", padSeq(2)]]),
      ...expect(204, "Accepted."),
    },
  ];
}

export function createDemo(transport: Transport, bucket: string): ScriptedLab<DemoCtx> {
  return new ScriptedLab<DemoCtx>(transport, () => ({ bucket }), demoSteps);
}
