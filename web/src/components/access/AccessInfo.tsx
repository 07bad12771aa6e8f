// Who this console is to the server, in the sidebar: nothing when the server has no access
// control; otherwise the token's scopes and buckets (or anonymous reads), and a way to enter or
// forget the token.
import { auth } from "../../state/auth";

export function AccessInfo() {
  const who = auth.who.value;
  if (!who || who.auth === "none") return null;
  const writes = who.scopes.includes("write");
  return (
    <section class="server-info access-info" aria-label="Access" data-testid="access-info">
      <strong>Access</strong>
      <dl>
        <dt>token</dt>
        <dd data-testid="access-token">{who.authenticated ? "entered" : who.public_read ? "none: public reads" : "none"}</dd>
        <dt>scopes</dt>
        <dd data-testid="access-scopes">{who.scopes.join(", ") || "none"}</dd>
        {who.authenticated && (
          <>
            <dt>buckets</dt>
            <dd data-testid="access-buckets">{who.buckets === null ? "all" : who.buckets.join(", ") || "none"}</dd>
          </>
        )}
      </dl>
      {who.scopes.includes("read") && !writes && (
        <div class="read-only" data-testid="read-only">
          Read-only: write actions say which scope they need.
        </div>
      )}
      {who.authenticated ? (
        <button type="button" class="small" onClick={() => void auth.forget()}>
          Forget token
        </button>
      ) : (
        <button type="button" class="small" onClick={() => auth.prompt()}>
          Enter a token
        </button>
      )}
    </section>
  );
}
