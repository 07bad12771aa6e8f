// The start page: what ursa is, in one plain sentence; a one-click demo bucket, so every guard has
// something to show; then what each write guard protects against, with one lab each. Each word
// the glossary defines is linked where a block first uses it.
import type { ComponentChildren } from "preact";
import { useEffect, useMemo } from "preact/hooks";
import { introspection, type BucketPage, type ServerInfo } from "../../api/introspection";
import { Resource } from "../../state/resource";
import { demoRun, startDemo } from "../../state/app";
import { DEMO_STREAMS } from "../../state/demo";
import { links } from "../../state/router";
import { count } from "../../format";
import { Link } from "../common/Link";
import { CwRule } from "../explainers/CwRule";
import type { CwRuleId } from "../../learn/conditional-writes";
import { auth } from "../../state/auth";
import { NeedNote } from "../access/NeedNote";
import { Term } from "./Term";

interface Guard {
  id: string;
  header: string;
  against: string;
  text: ComponentChildren[];
  lab: { href: string; label: string };
  rules: CwRuleId[];
}

const GUARDS: Guard[] = [
  {
    id: "guard-seq",
    header: "Stream-Seq",
    against: "Appends built on a stale read",
    text: [
      <>
        A stream keeps the last <Term id="stream-seq" /> it accepted, and takes an append carrying one only if the new value is <Term id="bytewise" /> greater.
      </>,
      <>
        Writers that send the number of events they read (a <Term id="prefix-count" />) can share one log: when two send the same count, one wins and the other gets a
        409 showing the stored value, reads the events it missed, and retries with the new count, <Term id="n-plus-k" />.
      </>,
      "Pad numbers to a fixed width: “10” sorts before “9”.",
    ],
    lab: { href: links.race(), label: "Race lab: writers racing for one log" },
    rules: ["seq-check", "seq-409", "prefix-5"],
  },
  {
    id: "guard-producer",
    header: "Producer-Id · Epoch · Seq",
    against: "Retries that write twice, and old owners that write late",
    text: [
      <>
        A <Term id="producer" /> numbers its appends. Retrying an append that was already accepted is answered as a <Term id="duplicate" />, so a lost answer can be
        retried safely.
      </>,
      <>
        A new owner takes over with a higher <Term id="epoch" />; once its first append is accepted, the old epoch is refused with 403 (<Term id="fencing">fenced</Term>).
      </>,
      "With Stream-Seq set to each fact's number, a fact is published at most once and in order, whichever owner sends it.",
    ],
    lab: { href: links.outbox(), label: "Outbox lab: a takeover, step by step" },
    rules: ["seq-dedup", "outbox-3", "outbox-4"],
  },
  {
    id: "guard-incarnation",
    header: "Stream-Incarnation",
    against: "Acting on a stream that was deleted and recreated",
    text: [
      <>
        Every successful answer about a stream, except a DELETE's, carries a token for this <Term id="incarnation" /> of it.
      </>,
      <>
        Send it back, and if the stream at that URL is another one now, the server refuses with 412 and the new token, instead of applying your{" "}
        <Term id="offset">offsets</Term>, producer state or cache to a stranger.
      </>,
      "A missing stream still answers 404; only a PUT carrying a token answers 412 and creates nothing.",
    ],
    lab: { href: links.incarnation(), label: "Incarnation lab: recreate a stream under a client" },
    rules: ["inc-carry", "inc-send", "inc-404"],
  },
];

function GuardCard({ g }: { g: Guard }) {
  return (
    <section class="guard-card panel" aria-labelledby={g.id}>
      <header>
        <h2 id={g.id} class="mono">
          {g.header}
        </h2>
      </header>
      <div class="body stack" style={{ gap: "8px" }}>
        <p class="against">
          <span class="muted">Protects against</span> {g.against.toLowerCase()}.
        </p>
        {g.text.map((t, i) => (
          <p key={i}>{t}</p>
        ))}
        <Link href={g.lab.href} class="lab-link">
          {g.lab.label} →
        </Link>
        <CwRule ids={g.rules} />
      </div>
    </section>
  );
}

/** The first of demo, demo-2, demo-3… that no bucket uses yet. */
function freeDemoBucket(page: BucketPage | null): string {
  const taken = new Set(page?.buckets.map((b) => b.bucket_id) ?? []);
  for (let i = 1; ; i++) {
    const name = i === 1 ? "demo" : `demo-${i}`;
    if (!taken.has(name)) return name;
  }
}

function DemoPanel({ buckets, info }: { buckets: Resource<BucketPage, null>; info: ServerInfo | null }) {
  const run = demoRun.value;
  const empty = info !== null && info.streams === 0;
  const bucket = run?.ctx.bucket ?? freeDemoBucket(buckets.data.value);
  const done = run !== null && run.finished && !run.halted.value;
  const write = auth.need("write", bucket);
  const admin = auth.need("admin", bucket);
  return (
    <section class="panel demo-panel" aria-labelledby="demo-title">
      <header>
        <h2 id="demo-title">{empty && !run ? "This server is empty" : "Demo bucket"}</h2>
        {info && (
          <span class="muted num" data-testid="server-counts">
            {count(info.streams)} stream{info.streams === 1 ? "" : "s"} in {count(info.buckets)} bucket{info.buckets === 1 ? "" : "s"} ·{" "}
            <Link href={links.buckets()}>browse</Link>
          </span>
        )}
      </header>
      <div class="body stack" style={{ gap: "8px" }}>
        {!run && (
          <>
            <p>
              One click writes four streams to a bucket named <code>{bucket}</code>: a <Term id="prefix-count" /> log with a lost race and a stale resend, an outbox
              published by two producer <Term id="epoch">epochs</Term> (one append retried and answered as a <Term id="duplicate" />), a stream deleted and recreated, and a <Term id="fork" />. Every request goes through the attempt
              timeline, refusals included.
            </p>
            <div class="stack" style={{ gap: "4px" }}>
              <div>
                <button type="button" class="primary" onClick={() => void startDemo(bucket)} disabled={!!(write || admin)} aria-describedby={write || admin ? "demo-need" : undefined}>
                  Create the demo bucket
                </button>
              </div>
              <NeedNote
                id="demo-need"
                items={[
                  { what: "Its streams", need: write },
                  { what: "Its delete and recreate", need: admin },
                ]}
              />
            </div>
          </>
        )}
        {run && (
          <>
            <ol class="demo-steps" aria-label="Demo steps">
              {run.steps.map((s, i) => {
                const rec = run.records.value[i];
                return (
                  <li key={i} class={rec ? (rec.ok ? "ok" : "bad") : ""}>
                    <span class="mono muted">{s.actor}</span> {s.title}
                    {rec && !rec.ok && <span class="error-text"> — {rec.note}</span>}
                  </li>
                );
              })}
            </ol>
            {done && (
              <div class="note ok" data-testid="demo-done">
                Done: {run.steps.length} requests.{" "}
                {DEMO_STREAMS.map((s, i) => (
                  <span key={s}>
                    {i > 0 && " · "}
                    <Link href={links.stream(bucket, s)} class="mono">
                      {s}
                    </Link>
                  </span>
                ))}{" "}
                · <Link href={links.timeline()}>the requests in the timeline</Link>
              </div>
            )}
            {run.halted.value && <div class="note bad">Stopped: a step did not answer as planned (is the bucket already in use?).</div>}
          </>
        )}
      </div>
    </section>
  );
}

export function StartPage() {
  const info = useMemo(() => new Resource<ServerInfo, null>((_q, s) => introspection.info(s)), []);
  const buckets = useMemo(() => new Resource<BucketPage, null>((_q, s) => introspection.buckets({ prefix: "demo", limit: 100 }, s)), []);
  const running = demoRun.value?.records.value.length;
  useEffect(() => {
    void info.load(null);
    void buckets.load(null);
  }, [running]);
  useEffect(
    () => () => {
      info.dispose();
      buckets.dispose();
    },
    [],
  );
  const d = info.data.value;
  return (
    <>
      <div class="page-head start-head">
        <div>
          <h1>
            ursa {d && <span class="chip plain">{d.version}</span>}
          </h1>
          <p class="lede" data-testid="what-ursa-is">
            ursa is an HTTP server of append-only <Term id="stream">streams</Term> that many writers and readers share: writers add to the end of a stream, and readers
            read it from any <Term id="offset" /> or follow its <Term id="tail" /> live.
          </p>
          <p class="sub">
            When several writers share one stream, three write guards keep it correct: <Term id="stream-seq" />, the <Term id="producer" /> headers and{" "}
            <Term id="incarnation">Stream-Incarnation</Term>. Each has a lab that runs it against this server, and the <Link href={links.glossary()}>glossary</Link>{" "}
            defines every word.
          </p>
        </div>
      </div>
      <DemoPanel buckets={buckets} info={d} />
      <div class="guard-cards">
        {GUARDS.map((g) => (
          <GuardCard key={g.id} g={g} />
        ))}
      </div>
      <section class="panel compaction-card" aria-labelledby="compaction-card-title">
        <header>
          <h2 id="compaction-card-title">Snapshots and retention</h2>
        </header>
        <div class="body compaction-card-body">
          <p>
            <span class="muted">Protects against</span> <strong>losing count once the start of a stream is trimmed.</strong> A <Term id="snapshot" /> stands for
            everything before its offset; <Term id="retention" /> then deletes those messages, and every read below the <Term id="floor" /> answers 410. New clients
            start from the snapshot through <Term id="bootstrap" />, and a prefix-count writer counts on from the event count the snapshot keeps.
          </p>
          <div class="stack" style={{ gap: "4px" }}>
            <Link href={links.compaction()} class="lab-link">
              Compaction lab: snapshot, trim, count on, recover from a 410 →
            </Link>
            <CwRule ids={["prefix-3"]} />
          </div>
        </div>
      </section>
    </>
  );
}
