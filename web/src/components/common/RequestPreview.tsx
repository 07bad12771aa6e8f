// The exact request a button will send: its line, its headers, the frames of a batch, and the
// Authorization header the console adds when it holds a token (shown, never its value).
import type { ProtocolRequest } from "../../api/types";
import { auth } from "../../state/auth";
import { HeaderTable } from "./HeaderTable";

export function RequestPreview({ req, label = "Headers to send", testId }: { req: ProtocolRequest; label?: string; testId?: string }) {
  const headers = auth.token.value && !req.headers.some(([k]) => k.toLowerCase() === "authorization") ? [...req.headers, ["Authorization", "Bearer (this console's token)"] as [string, string]] : req.headers;
  return (
    <div class="preview">
      <div class="mono request-line" data-testid={testId}>
        {req.method} {req.path}
      </div>
      <HeaderTable headers={headers} label={label} />
    </div>
  );
}
