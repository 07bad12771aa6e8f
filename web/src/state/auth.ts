// The console's access to a server that needs a token (docs/security.md): the token, kept in
// this tab's sessionStorage only (never localStorage, never in a request object or the timeline),
// what the server says it may do (GET /__ursula/api/whoami), and whether to ask for one. Any
// page can ask `need(scope, bucket)` to learn whether a write is allowed and, if not, what it
// would take. Changing the token bumps `epoch`, and the shell re-reads every page.
import { batch, signal } from "@preact/signals";
import { fetchWhoAmI, type WhoAmI, type WhoAmIResult } from "../api/introspection";
import { installCredentials, type Challenge } from "../api/credentials";
import type { Scope } from "../api/paths";

/** Why the console asks for a token. */
export type Ask =
  | { kind: "needed"; path?: string }
  /** The token sent was refused (unknown, expired, another audience…). */
  | { kind: "refused"; description?: string };

/** A write this token may not make, and what it would take. */
export interface Need {
  scope: Scope;
  /** The bucket the token would have to reach, when that is what is missing. */
  bucket?: string;
  text: string;
}

export interface AuthDeps {
  storage: Pick<Storage, "getItem" | "setItem" | "removeItem"> | null;
  whoami(token: string | null): Promise<WhoAmIResult>;
}

const KEY = "ursa.token";

export class AuthModel {
  readonly token = signal<string | null>(null);
  readonly who = signal<WhoAmI | null>(null);
  readonly ask = signal<Ask | null>(null);
  /** Bumped whenever the token changes: whatever was read with the old one is read again. */
  readonly epoch = signal(0);
  /** "Not now" was chosen: polls answered 401 do not bring the prompt back every second. */
  private quiet = false;

  constructor(private readonly deps: AuthDeps) {
    try {
      this.token.value = deps.storage?.getItem(KEY) || null;
    } catch {
      /* storage refused: no token */
    }
  }

  /** Asks the server who this console is, and asks the person for a token when it needs one. */
  async refresh(): Promise<void> {
    const r = await this.deps.whoami(this.token.value);
    batch(() => {
      if (r.ok) {
        this.who.value = r.data;
        if (r.data.auth !== "none" && !r.data.authenticated && !r.data.public_read) this.ask.value ??= { kind: "needed" };
      } else if (r.status === 401 && this.token.value) this.refuse(r.message);
    });
  }

  /** A request was answered 401 with a Bearer challenge. */
  challenged(c: Challenge, path: string): void {
    // A token the server no longer takes (revoked, expired) is dropped, not sent again and again.
    if (c.error === "invalid_token" && this.token.value) return this.refuse(c.description);
    if (this.ask.value || this.quiet) return;
    this.ask.value = { kind: "needed", path };
  }

  private refuse(description: string | undefined): void {
    this.drop();
    this.ask.value = { kind: "refused", description };
  }

  private drop(): void {
    try {
      this.deps.storage?.removeItem(KEY);
    } catch {
      /* nothing stored */
    }
    this.token.value = null;
  }

  /** Tries a token: kept (and every page re-read) when the server accepts it; otherwise why not. */
  async submit(raw: string): Promise<string | null> {
    const token = raw.trim().replace(/^bearer\s+/i, "");
    if (token === "") return "Enter a token.";
    const r = await this.deps.whoami(token);
    if (!r.ok) return r.status === 401 ? `The server refused this token: ${r.message}` : `Could not check the token: ${r.status} ${r.message}`;
    if (!r.data.authenticated) return "The server does not use tokens: nothing to enter.";
    try {
      this.deps.storage?.setItem(KEY, token);
    } catch {
      /* kept in memory for this page only */
    }
    batch(() => {
      this.token.value = token;
      this.who.value = r.data;
      this.ask.value = null;
      this.epoch.value++;
    });
    this.quiet = false;
    return null;
  }

  /** Forgets the token (this tab's copy: the server never had a session to end). */
  async forget(): Promise<void> {
    batch(() => {
      this.drop();
      this.ask.value = null;
      this.epoch.value++;
    });
    this.quiet = false;
    await this.refresh();
  }

  /** Go on without a token (public reads, or just the console's own pages). */
  dismiss(): void {
    this.ask.value = null;
    this.quiet = true;
  }

  /** Opens the prompt by hand (the sidebar's "Enter a token"). */
  prompt(): void {
    this.ask.value = { kind: "needed" };
  }

  /**
   * Null when this console may do `scope` in `bucket` (or nothing is known yet: the server then
   * decides); otherwise what it would take, in the console's words.
   */
  need(scope: Scope, bucket: string | null): Need | null {
    const who = this.who.value;
    if (!who || who.auth === "none") return null;
    if (scope === "read" && who.public_read) return null;
    if (!who.authenticated) return { scope, text: `needs a token with the ${scope} scope: this console has none` };
    if (!who.scopes.includes(scope)) return { scope, text: `needs the ${scope} scope: this token has ${who.scopes.join(", ") || "no scope"}` };
    if (bucket !== null && who.buckets !== null && !who.buckets.includes(bucket)) {
      return { scope, bucket, text: `needs a token for bucket ${bucket}: this one is limited to ${who.buckets.join(", ") || "no bucket"}` };
    }
    return null;
  }

  /** The buckets this token is limited to, or null for every bucket (or no limit known). */
  get limitedTo(): string[] | null {
    const who = this.who.value;
    return who && who.auth !== "none" && who.authenticated ? who.buckets : null;
  }
}

function tabStorage(): Storage | null {
  try {
    return typeof sessionStorage !== "undefined" ? sessionStorage : null;
  } catch {
    return null;
  }
}

export const auth = new AuthModel({ storage: tabStorage(), whoami: (token) => fetchWhoAmI(token) });

installCredentials({ token: () => auth.token.value, challenged: (c, path) => auth.challenged(c, path) });
