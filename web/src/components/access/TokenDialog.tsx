// The console asks for a token when the server needs one: at start (whoami says so) or when any
// request is answered 401 with a Bearer challenge. The token stays in this tab's sessionStorage.
import { useState } from "preact/hooks";
import { auth } from "../../state/auth";
import { Dialog } from "../common/Dialog";

export function TokenDialog() {
  const ask = auth.ask.value;
  const who = auth.who.value;
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const title = ask?.kind === "refused" ? "The server refused the token" : "This server needs a token";
  const submit = async (e: Event) => {
    e.preventDefault();
    setChecking(true);
    const why = await auth.submit(value);
    setChecking(false);
    setError(why);
    if (!why) setValue("");
  };
  return (
    <Dialog open={ask !== null} title={title} onClose={() => auth.dismiss()} testId="token-dialog">
      <form class="stack" style={{ gap: "10px" }} onSubmit={submit} aria-label="Enter a token">
        {ask?.kind === "refused" ? (
          <p>
            The token this console sent was refused{ask.description ? `: ${ask.description}` : ""}. It may have expired, or belong to another server. Enter another
            one.
          </p>
        ) : (
          <p>
            This ursa checks a bearer token on every request{who?.public_read ? ", except reads, which anyone may make" : ""}. Enter the token its operator gave you
            {ask?.path ? (
              <>
                {" "}
                (asked for by <code>{ask.path.split("?")[0]}</code>)
              </>
            ) : null}
            .
          </p>
        )}
        <label class="field">
          <span>Bearer token</span>
          <input class="mono" type="password" autocomplete="off" spellcheck={false} value={value} onInput={(e) => setValue(e.currentTarget.value)} autofocus />
        </label>
        {error && (
          <div class="note bad" role="alert" data-testid="token-error">
            {error}
          </div>
        )}
        <p class="muted small-line">
          Kept in this tab's session storage only: closing the tab forgets it. Sent as <code>Authorization: Bearer …</code> on every request; never stored in the
          timeline, whose snippets say <code>$URSA_TOKEN</code> instead.
        </p>
        <div class="row">
          <button type="submit" class="primary" disabled={checking}>
            {checking ? "Checking…" : "Use token"}
          </button>
          <button type="button" onClick={() => auth.dismiss()}>
            {who?.public_read ? "Read without a token" : "Not now"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
