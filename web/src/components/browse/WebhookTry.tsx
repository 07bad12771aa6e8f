// "Try a webhook": one click makes a webhook subscription on the bucket's `webhook-try` stream
// pointed at the console's test receiver, appends to the stream, and shows the wake arriving with
// its signature checked; "Delete the subscription" ends it. Creating needs the admin scope.
import { useEffect, useMemo } from "preact/hooks";
import { browseTransport } from "../../state/app";
import { TRY_STREAM, WebhookTryModel } from "../../state/webhookTry";
import { clock } from "../../format";
import { Term } from "../learn/Term";

const STATUS: Record<string, string> = {
  working: "Creating the stream and the subscription…",
  waiting: "Appended. Waiting for the wake…",
  arrived: "The wake arrived.",
  deleted: "The subscription is deleted.",
};

export function WebhookTry({ bucket, onChange }: { bucket: string; onChange: () => void }) {
  const model = useMemo(() => new WebhookTryModel(bucket, browseTransport, location.origin), [bucket]);
  useEffect(() => () => model.stop(), [model]);
  const step = model.step.value;
  const id = model.subscriptionId.value;
  const run = (action: () => Promise<void>) => void action().then(onChange);
  return (
    <div class="webhook-try" data-testid="webhook-try">
      <h3>Try a webhook</h3>
      <p class="muted small-line">
        Subscribes to <span class="mono">{TRY_STREAM}</span> in this bucket with a webhook to this server's test receiver (<span class="mono">{model.receiverUrl}</span>), which
        the server hands wakes to itself and lists here. Then appends a message, so a <Term id="wake" /> arrives.
      </p>
      <div class="actions-row">
        {id === null ? (
          <button type="button" class="primary" disabled={step === "working"} onClick={() => run(() => model.start())}>
            Try a webhook
          </button>
        ) : (
          <>
            <button type="button" onClick={() => run(() => model.append())}>
              Append again
            </button>
            <button type="button" class="danger" onClick={() => run(() => model.remove())}>
              Delete the subscription
            </button>
          </>
        )}
      </div>
      <p class="small-line" role="status" data-testid="webhook-try-status">
        {id && (
          <>
            Subscription <span class="mono">{id}</span>.{" "}
          </>
        )}
        {STATUS[step] ?? ""}
      </p>
      {model.error.value && (
        <p class="error-text small-line" data-testid="webhook-try-error">
          {model.error.value}
        </p>
      )}
      {model.wakes.value.length > 0 && (
        <ul class="sub-list" aria-label="Wakes the test receiver got">
          {model.wakes.value.map((w) => (
            <li key={w.wake_id} class="sub" data-testid="received-wake">
              <div class="sub-head">
                <span class="mono">{clock(Date.parse(w.received_at))}</span>
                <span>generation {w.generation}</span>
                <span class="mono sub-id">{w.wake_id}</span>
                <span class={`chip ${w.signature_verified ? "ok" : "bad"}`} data-testid="wake-signature">
                  {w.signature_verified ? "signature verified" : "signature does not verify"}
                </span>
              </div>
              <div class="muted">
                {w.streams.map((s) => (
                  <span key={s.path} class="mono">
                    {s.path} up to {s.tail_offset}{" "}
                  </span>
                ))}
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
