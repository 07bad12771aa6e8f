// Create a stream: ID, content type, lifetime, and an optional seeding Stream-Seq behind the
// warning of Ursula v0.9.0, Conditional Writes. The exact request is previewed before it is sent,
// and the answer shown after.
import { useState } from "preact/hooks";
import type { Exchange } from "../../api/types";
import { createRequest, pathProblem, type Lifetime } from "../../api/requests";
import { judgeSeq, padSeq } from "../../api/streamSeq";
import { protocolPath } from "../../api/introspection";
import { browseTransport } from "../../state/app";
import { links } from "../../state/router";
import { Dialog } from "../common/Dialog";
import { Link } from "../common/Link";
import { CwRule } from "../explainers/CwRule";
import { ActionResult } from "./ActionResult";
import { RequestPreview } from "../common/RequestPreview";
import { NeedNote } from "../access/NeedNote";
import { auth } from "../../state/auth";

const TYPES = ["application/json", "text/plain", "application/octet-stream"];

export function CreateStreamButton({ bucket, label = "Create stream" }: { bucket?: string; label?: string }) {
  const [open, setOpen] = useState(false);
  const need = auth.need("write", bucket ?? null);
  return (
    <>
      <span class="stack" style={{ gap: "2px", alignItems: "flex-end" }}>
        <button type="button" class="primary" onClick={() => setOpen(true)} disabled={!!need} aria-describedby={need ? "create-need" : undefined}>
          {label}
        </button>
        <NeedNote id="create-need" items={[{ what: "Create", need }]} />
      </span>
      <Dialog open={open} title="Create a stream" onClose={() => setOpen(false)} testId="create-dialog">
        <CreateStreamForm bucket={bucket} />
      </Dialog>
    </>
  );
}

/** `bucket`: the bucket whose page this is, prefilled. */
function CreateStreamForm({ bucket: given }: { bucket?: string }) {
  const [bucket, setBucket] = useState(given ?? "");
  const [name, setName] = useState("");
  const [contentType, setContentType] = useState(TYPES[0]!);
  const [lifetime, setLifetime] = useState<Lifetime>({ kind: "none" });
  const [seedOn, setSeedOn] = useState(false);
  const [seed, setSeed] = useState(padSeq(0));
  const [result, setResult] = useState<Exchange | null>(null);
  const [sending, setSending] = useState(false);
  // A path problem is said once a field was left with something in it, or on Create: not
  // "Name the stream." before anything is typed.
  const [checked, setChecked] = useState(false);
  const check = (value: string) => value !== "" && setChecked(true);
  const problem = pathProblem(bucket, name);
  const path = problem ? "" : protocolPath(bucket, name);
  const req = createRequest({ path: path || "/…", contentType, lifetime, seed: seedOn ? seed : "" });
  const seedVerdict = judgeSeq(seed);
  const need = problem ? null : auth.need("write", bucket);
  const submit = async (e: Event) => {
    e.preventDefault();
    setChecked(true);
    if (problem || need) return;
    setSending(true);
    setResult(await browseTransport(req));
    setSending(false);
  };
  return (
    <form class="stack" style={{ gap: "10px" }} onSubmit={submit} aria-label="New stream">
      <div class="row" style={{ alignItems: "flex-end" }}>
        <label class="field">
          <span>Bucket</span>
          <input
            class="mono"
            value={bucket}
            onInput={(e) => setBucket(e.currentTarget.value)}
            onBlur={(e) => check(e.currentTarget.value)}
            placeholder="e.g. orders"
            spellcheck={false}
            style={{ width: "180px", maxWidth: "100%" }}
            autofocus={given === undefined}
          />
        </label>
        <label class="field grow">
          <span>Stream ID</span>
          <input class="mono" value={name} onInput={(e) => setName(e.currentTarget.value)} onBlur={(e) => check(e.currentTarget.value)} placeholder="e.g. run-42" spellcheck={false} autofocus={given !== undefined} />
        </label>
      </div>
      {problem && checked && (
        <div class="warn-text small-line" role="status" data-testid="create-problem">
          {problem}
        </div>
      )}
      <label class="field">
        <span>Content type</span>
        <input class="mono" list="create-types" value={contentType} onInput={(e) => setContentType(e.currentTarget.value)} />
        <datalist id="create-types">
          {TYPES.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
      </label>
      <fieldset class="plain-fieldset">
        <legend>Lifetime</legend>
        <div class="row">
          <label class="toggle-row">
            <input type="radio" name="lifetime" checked={lifetime.kind === "none"} onChange={() => setLifetime({ kind: "none" })} />
            until deleted
          </label>
          <label class="toggle-row">
            <input type="radio" name="lifetime" checked={lifetime.kind === "ttl"} onChange={() => setLifetime({ kind: "ttl", seconds: "3600" })} />
            Stream-TTL
          </label>
          {lifetime.kind === "ttl" && (
            <input class="mono" aria-label="TTL seconds" value={lifetime.seconds} onInput={(e) => setLifetime({ kind: "ttl", seconds: e.currentTarget.value })} style={{ width: "90px" }} />
          )}
          <label class="toggle-row">
            <input type="radio" name="lifetime" checked={lifetime.kind === "expires"} onChange={() => setLifetime({ kind: "expires", at: new Date(Date.now() + 86_400_000).toISOString() })} />
            Stream-Expires-At
          </label>
          {lifetime.kind === "expires" && (
            <input class="mono grow" aria-label="Expires at" value={lifetime.at} onInput={(e) => setLifetime({ kind: "expires", at: e.currentTarget.value })} />
          )}
        </div>
      </fieldset>
      <div class={`guard ${seedOn ? "on" : ""}`} style={{ border: "1px solid var(--border)", borderRadius: "var(--radius)" }}>
        <label class="toggle-row guard-label">
          <input type="checkbox" checked={seedOn} onChange={(e) => setSeedOn(e.currentTarget.checked)} />
          <span class="mono">Stream-Seq</span>
          <span class="muted guard-hint">store a starting value (seeding PUT)</span>
        </label>
        {seedOn && (
          <div class="guard-body stack" style={{ gap: "6px" }}>
            <input class="mono" aria-label="Starting Stream-Seq" value={seed} onInput={(e) => setSeed(e.currentTarget.value)} spellcheck={false} />
            {seedVerdict.kind !== "ok" && <div class="warn-text small-line">{seedVerdict.kind === "not-fixed-width" ? `${seedVerdict.width} digits: compared bytewise, so pad to 20.` : "The server would refuse or ignore this value."}</div>}
            <div class="note warn" data-testid="seed-warning">
              Don't seed a prefix-count stream: its first commit sends 0, which only beats “no value”. A stored value above the true count leaves every honest writer's
              count too small, so each of its retries answers 409.
            </div>
            <CwRule ids={["prefix-1", "prefix-seeded", "seq-put"]} />
          </div>
        )}
      </div>
      <RequestPreview req={path ? req : { ...req, path: `/${bucket || "(bucket)"}/${name || "(stream ID)"}` }} testId="create-request-line" />
      <div class="row">
        <button type="submit" class="primary" disabled={!!need || sending}>
          {sending ? "Creating…" : "Create"}
        </button>
        {result?.response?.status === 201 && (
          <Link href={links.stream(bucket, name)} class="button-link">
            Open {name} →
          </Link>
        )}
      </div>
      <NeedNote items={[{ what: "Creating it", need }]} />
      {result && <ActionResult ex={result} />}
    </form>
  );
}
