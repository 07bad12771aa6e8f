import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import { ROUTE_FAMILIES, type RouteFamily } from "../ops/server-metrics";
import { protocolError } from "../protocol/errors";
import { renderError } from "./error-map";

// The one dispatch: every request is matched, once, against one table of routes that knows method
// × route × sub-resource. The match names the handler and the request's metrics family, so the
// gate (security/gate.ts), which answers some requests before any handler runs, and the metrics
// (observe.ts) see the same route the handler does. Rows are tried from the most specific pattern to
// the least (at the first segment where two patterns differ, a literal before a `:param` before a
// `*` rest), so a new route is one row, and no other route has to leave room for it.
//
// A row answers the methods it names. HEAD is derived here, once: a row's own HEAD handler if it
// has one, else its GET handler (the body is dropped in one place, error-map.ts answerTo). For any
// other method a resource row (`resource`) answers 405 with its Allow list; a plain row lets the
// next matching row try. Hono's router matches the paths; handlers see a context of their own
// (`c.req.raw`, `c.req.param`, the raw path and what `*` took). The stream routes take the raw path
// and decode their segments themselves (spec §1.1: decoded once, then validated).

export type RouteHandler = (c: RouteContext) => Response | Promise<Response>;

type Segment = { kind: "literal"; value: string } | { kind: "param"; name: string } | { kind: "rest" };

interface Row {
  pattern: string;
  segments: Segment[];
  /** Fixed segments: a rest pattern matches paths longer than these, any other exactly as long. */
  fixed: number;
  rest: boolean;
  /** Its label in ursa_http_requests_total, as an index into ROUTE_FAMILIES. */
  family: number;
  /** Handlers by upper-case method. */
  handlers: ReadonlyMap<string, RouteHandler>;
  /** What answers every other method (a 405, or a row for all methods), or null to let the next row try. */
  otherwise: RouteHandler | null;
}

/** A request matched to a row: its raw (still-encoded) path, the path's segments and the row's parameters. */
export class RouteContext {
  /** Hono's `c.req`: the same object. */
  readonly req = this;

  constructor(
    readonly raw: Request,
    /** The path, still encoded, without query. */
    readonly path: string,
    private readonly segments: readonly string[],
    private readonly row: Row,
  ) {}

  get url(): string {
    return this.raw.url;
  }

  get method(): string {
    return this.raw.method;
  }

  /** A HEAD answered by a GET handler: the handler skips what only GET does (the body, a TTL renewal). */
  get head(): boolean {
    return this.raw.method === "HEAD";
  }

  /** A `:name` segment, percent-decoded (left as sent when its escapes are malformed). */
  param(name: string): string {
    const i = this.row.segments.findIndex((s) => s.kind === "param" && s.name === name);
    if (i < 0) throw new Error(`route ${this.row.pattern} has no parameter ${name}`);
    return decodeLoosely(this.segments[i]!);
  }

  /** What `*` matched, still encoded: the path after the row's fixed segments and their slash. */
  get rest(): string {
    let at = 1;
    for (let i = 0; i < this.row.fixed; i++) at += this.segments[i]!.length + 1;
    return this.path.slice(at);
  }
}

function decodeLoosely(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * A resource: what its path names (`target`, whose refusal wins over any method's), and a handler
 * per method. A method it has no handler for is answered 405 with the Allow list, saying it is not
 * allowed `on` what the resource is called.
 */
export interface Resource<T> {
  family: RouteFamily;
  on: string;
  target: (c: RouteContext) => T | Response;
  methods: Partial<Record<string, (c: RouteContext, target: T) => Response | Promise<Response>>>;
}

/** The Allow list of a row with these methods: HEAD where GET is, and OPTIONS (preflights, security/gate.ts). */
export function allowOf(methods: readonly string[]): string {
  const allow = [...methods];
  if (allow.includes("GET") && !allow.includes("HEAD")) allow.splice(allow.indexOf("GET") + 1, 0, "HEAD");
  return [...allow, "OPTIONS"].join(", ");
}

/** A table of routes; `get`/`on`/`all`/`resource` add rows, `routes` adds another table's rows. */
export class Routes {
  readonly rows: Row[] = [];

  /**
   * @param family of every row added to this table.
   * @param prefix prepended to every pattern added to this table, e.g. `/__ursula`.
   */
  constructor(
    private readonly family: RouteFamily,
    private readonly prefix = "",
  ) {}

  /** GET, and HEAD with it. */
  get(pattern: string, handle: RouteHandler): this {
    return this.on(["GET"], pattern, handle);
  }

  all(pattern: string, handle: RouteHandler): this {
    return this.add(pattern, this.family, new Map(), handle);
  }

  on(methods: readonly string[], pattern: string, handle: RouteHandler): this {
    return this.add(pattern, this.family, new Map(methods.map((m) => [m, handle])), null);
  }

  resource<T>(pattern: string, r: Resource<T>): this {
    const handlers = new Map<string, RouteHandler>();
    for (const [method, handle] of Object.entries(r.methods)) {
      handlers.set(method, (c) => {
        const target = r.target(c);
        return target instanceof Response ? target : handle!(c, target);
      });
    }
    const allow = allowOf(Object.keys(r.methods));
    const refuse = (c: RouteContext) => {
      const target = r.target(c);
      return target instanceof Response ? target : methodNotAllowed(c.method, r.on, allow);
    };
    return this.add(pattern, r.family, handlers, refuse);
  }

  /** Another table's rows, each keeping its family, under this table's prefix. */
  routes(other: Routes): this {
    for (const row of other.rows) {
      const pattern = this.prefix + row.pattern;
      this.rows.push({ ...row, pattern, segments: segmentsOf(pattern).segments });
    }
    return this;
  }

  private add(pattern: string, family: RouteFamily, handlers: ReadonlyMap<string, RouteHandler>, otherwise: RouteHandler | null): this {
    const full = this.prefix + pattern;
    const { segments, restAt } = segmentsOf(full);
    this.rows.push({ pattern: full, segments, fixed: restAt >= 0 ? restAt : segments.length, rest: restAt >= 0, family: FAMILY[family], handlers, otherwise });
    return this;
  }
}

const methodNotAllowed = (method: string, on: string, allow: string) => renderError(protocolError("METHOD_NOT_ALLOWED", `${method} is not allowed on ${on}`, { allow }));

const FAMILY = Object.fromEntries(ROUTE_FAMILIES.map((f, i) => [f, i])) as Record<RouteFamily, number>;

function segmentsOf(full: string): { segments: Segment[]; restAt: number } {
  if (!full.startsWith("/")) throw new Error(`route ${full} does not start with /`);
  const segments: Segment[] = full === "/" ? [] : full.slice(1).split("/").map(segmentOf);
  const restAt = segments.findIndex((s) => s.kind === "rest");
  if (restAt >= 0 && restAt !== segments.length - 1) throw new Error(`route ${full}: * must be the last segment`);
  return { segments, restAt };
}

function segmentOf(s: string): Segment {
  if (s === "*") return { kind: "rest" };
  if (s.startsWith(":")) return { kind: "param", name: s.slice(1) };
  if (s === "" || s.includes(":") || s.includes("*")) throw new Error(`route segment ${JSON.stringify(s)} is not a literal, :param or *`);
  return { kind: "literal", value: s };
}

const RANK = { literal: 0, param: 1, rest: 2 } as const;

/** Most specific first; two rows that would match the same paths with the same methods are a mistake. */
function bySpecificity(a: Row, b: Row): number {
  const n = Math.max(a.segments.length, b.segments.length);
  for (let i = 0; i < n; i++) {
    const x = a.segments[i];
    const y = b.segments[i];
    if (x === undefined || y === undefined) return x === undefined ? -1 : 1;
    if (x.kind !== y.kind) return RANK[x.kind] - RANK[y.kind];
    if (x.kind === "literal" && y.kind === "literal" && x.value !== y.value) return x.value < y.value ? -1 : 1;
  }
  return 0;
}

function overlaps(a: Row, b: Row): boolean {
  if (a.otherwise !== null || b.otherwise !== null) return true;
  for (const m of a.handlers.keys()) if (b.handlers.has(m)) return true;
  return false;
}

/** What a request takes: the handler, and the family it is counted under. */
export interface Match {
  family: number;
  raw: string;
  handle: RouteHandler;
  row: Row;
  segments: string[];
}

export interface Dispatch {
  /** The route `method` × `raw` (the request's path, still encoded) takes; every request has one (`unmatched` when no row takes it). */
  match(method: string, raw: string): Match;
  serve(req: Request, match: Match): Response | Promise<Response>;
}

/**
 * The dispatch of a table. Hono's router matches the raw path as it is (a %2F inside a stream name
 * must not split it); the rows are registered most specific first, so of the rows that match, it
 * lists that one first. `unmatched` answers a path no row takes, or a method no matching row
 * answers. A handler's error reaches the caller (observe.ts maps disk failures).
 */
export function dispatcher(table: Routes, unmatched: (req: Request) => Response): Dispatch {
  const rows = [...table.rows].sort(bySpecificity);
  for (let i = 1; i < rows.length; i++) {
    for (let j = i - 1; j >= 0 && bySpecificity(rows[j]!, rows[i]!) === 0; j--) {
      if (overlaps(rows[j]!, rows[i]!)) throw new Error(`routes ${rows[j]!.pattern} and ${rows[i]!.pattern} take the same requests`);
    }
  }
  const router = new SmartRouter<Row>({ routers: [new RegExpRouter(), new TrieRouter()] });
  for (const row of rows) router.add("ALL", row.pattern, row);
  const none: Row = { pattern: "", segments: [], fixed: 0, rest: false, family: FAMILY.other, handlers: new Map(), otherwise: (c) => unmatched(c.raw) };
  const match = (method: string, raw: string): Match => {
    const segments = raw.length === 1 ? [] : raw.slice(1).split("/");
    const family = method === "OPTIONS" ? FAMILY.preflight : -1;
    const found = router.match("ALL", raw)[0] as [Row, unknown][];
    for (let i = 0; i < found.length; i++) {
      const row = found[i]![0];
      // Hono's `*` also takes the bare prefix (`/ui/*` matches `/ui`); a rest row here needs a
      // segment more, so the next matching row answers.
      if (row.rest && segments.length <= row.fixed) continue;
      const handle = row.handlers.get(method) ?? (method === "HEAD" ? row.handlers.get("GET") : undefined) ?? row.otherwise;
      if (handle) return { family: family < 0 ? row.family : family, raw, handle, row, segments };
    }
    return { family: family < 0 ? none.family : family, raw, handle: none.otherwise!, row: none, segments };
  };
  return { match, serve: (req, m) => m.handle(new RouteContext(req, m.raw, m.segments, m.row)) };
}
