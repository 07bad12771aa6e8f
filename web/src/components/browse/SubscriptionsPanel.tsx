// A bucket's subscriptions (DS §6–§7) and their state: for each, what it follows, where its wakes
// go, the wake outstanding (generation), who holds its lease and until when, and how the last
// webhook delivery went. Asked again every few seconds, so a wake or a lease shows as it happens.
// Below them, "Try a webhook" (WebhookTry.tsx).
import { useEffect, useMemo } from "preact/hooks";
import { SubscriptionsModel } from "../../state/subscriptions";
import { count } from "../../format";
import { Panel } from "../common/Panel";
import { WebhookTry } from "./WebhookTry";
import { Term } from "../learn/Term";

export function SubscriptionsPanel({ bucket }: { bucket: string }) {
  const model = useMemo(() => new SubscriptionsModel(bucket), [bucket]);
  useEffect(() => {
    model.start();
    return () => model.stop();
  }, [model]);
  const page = model.list.data.value;
  const err = model.list.error.value;
  const rows = model.rows;
  return (
    <Panel title={`Subscriptions${page ? ` (${count(page.subscriptions.length)})` : ""}`} id="subscriptions">
      {err && (
        <p class="error-text small-line" data-testid="subscriptions-error">
          {err.status === 403 || err.status === 401 ? "Listing subscriptions needs a token with the admin scope on this bucket." : `Could not list the subscriptions: ${err.message}`}
        </p>
      )}
      {page && rows.length === 0 && (
        <p class="muted small-line" data-testid="subscriptions-empty">
          No <Term id="subscription" />: nothing is told when this bucket's streams are appended to.
        </p>
      )}
      {rows.length > 0 && (
        <ul class="sub-list" aria-label="Subscriptions">
          {rows.map((s) => (
            <li key={s.id} class="sub" data-testid="subscription" data-id={s.id}>
              <div class="sub-head">
                <span class="mono sub-id">{s.id}</span>
                <span class={`chip ${s.type === "webhook" ? "info" : "plain"}`}>{s.type}</span>
                {s.pending && <span class="chip warn">wake pending</span>}
                {s.lastError && <span class="chip bad">failing</span>}
              </div>
              <dl class="kv">
                <dt>Follows</dt>
                <dd>{s.follows}</dd>
                <dt>{s.type === "webhook" ? "Webhook" : "Wakes to"}</dt>
                <dd>{s.target}</dd>
                <dt>Wake</dt>
                <dd data-testid="sub-wake">{s.wake}</dd>
                <dt>Lease</dt>
                <dd data-testid="sub-lease">{s.lease ?? "nobody holds it"}</dd>
                <dt>Last delivery</dt>
                <dd data-testid="sub-delivery">{s.lastDelivery}</dd>
                <dt>Last error</dt>
                <dd data-testid="sub-error">{s.lastError ?? "none"}</dd>
                <dt>Attempts</dt>
                <dd>{s.attempts}</dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <WebhookTry bucket={bucket} onChange={() => void model.list.reload()} />
    </Panel>
  );
}
