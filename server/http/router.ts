import { Hono, type Context, type Next } from "hono";

// The one routing path: every request is matched against one table of routes, and the dispatch
// (a Hono app) is built from that table. Rows are tried from the most specific pattern to the least (at the
// first segment where two patterns differ, a literal before a `:param` before a `*` rest), so a
// new route is one row, and no other route has to leave room for it. A row that does not answer
// the request's method lets the next matching row try; HEAD is answered by GET rows (its body is
// dropped in one place, error-map.ts answerTo).
//
// Hono matches; handlers see a context of their own (`c.req.raw`, `c.req.param`, the raw path and
// what `*` took), built from the row that matched. The stream routes take the raw path and
// decode their segments themselves (spec §1.1: decoded once, then validated).

export type RouteHandler = (c: RouteContext) => Response | Promise<Response>;

type Segment = { kind: "literal"; value: string } | { kind: "param"; name: string } | { kind: "rest" };

interface Row {
  pattern: string;
  segments: Segment[];
  /** Fixed segments: a rest pattern matches paths longer than these, any other exactly as long. */
  fixed: number;
  rest: boolean;
  /** Upper-case methods the row answers, or null for all. */
  methods: ReadonlySet<string> | null;
  handle: RouteHandler;
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

const GET_HEAD = ["GET", "HEAD"];

/** A table of routes; `get`/`on`/`all` add rows, `routes` adds another table's rows. */
export class Routes {
  readonly rows: Row[] = [];

  /** @param prefix prepended to every pattern added to this table, e.g. `/__ursula`. */
  constructor(private readonly prefix = "") {}

  /** GET, and HEAD with it. */
  get(pattern: string, handle: RouteHandler): this {
    return this.on(GET_HEAD, pattern, handle);
  }

  all(pattern: string, handle: RouteHandler): this {
    return this.add(pattern, null, handle);
  }

  on(methods: readonly string[], pattern: string, handle: RouteHandler): this {
    return this.add(pattern, new Set(methods.flatMap((m) => (m === "GET" ? GET_HEAD : [m]))), handle);
  }

  routes(other: Routes): this {
    for (const row of other.rows) this.add(row.pattern, row.methods, row.handle);
    return this;
  }

  private add(pattern: string, methods: ReadonlySet<string> | null, handle: RouteHandler): this {
    const full = this.prefix + pattern;
    if (!full.startsWith("/")) throw new Error(`route ${full} does not start with /`);
    const segments: Segment[] = full === "/" ? [] : full.slice(1).split("/").map(segmentOf);
    const restAt = segments.findIndex((s) => s.kind === "rest");
    if (restAt >= 0 && restAt !== segments.length - 1) throw new Error(`route ${full}: * must be the last segment`);
    this.rows.push({ pattern: full, segments, fixed: restAt >= 0 ? restAt : segments.length, rest: restAt >= 0, methods, handle });
    return this;
  }
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
  if (a.methods === null || b.methods === null) return true;
  for (const m of a.methods) if (b.methods.has(m)) return true;
  return false;
}

/**
 * The dispatch of a table, as a Hono app: `raw` is the request's path, still encoded, and Hono
 * routes on it as it is (a %2F inside a stream name must not split it). The rows are registered
 * most specific first, so of the rows that match, Hono runs that one. `unmatched` answers a path no
 * row takes, or a method no matching row answers. A handler's error reaches the caller
 * (observe.ts maps disk failures), not Hono's own 500.
 */
export function dispatcher(table: Routes, unmatched: (req: Request) => Response): (req: Request, raw: string) => Response | Promise<Response> {
  const rows = [...table.rows].sort(bySpecificity);
  for (let i = 1; i < rows.length; i++) {
    for (let j = i - 1; j >= 0 && bySpecificity(rows[j]!, rows[i]!) === 0; j--) {
      if (overlaps(rows[j]!, rows[i]!)) throw new Error(`routes ${rows[j]!.pattern} and ${rows[i]!.pattern} take the same requests`);
    }
  }
  const app = new Hono<Bound>({ getPath: (_req, options) => options!.env!.raw });
  for (const row of rows) {
    const handle = (c: Context<Bound>, next: Next) => {
      const raw = c.env.raw;
      const segments = raw.length === 1 ? [] : raw.slice(1).split("/");
      // Hono's `*` also takes the bare prefix (`/ui/*` matches `/ui`); a rest row here needs a
      // segment more, so the next matching row answers.
      if (row.rest && segments.length <= row.fixed) return next().then(() => c.res);
      return answered(c.env, row.handle(new RouteContext(c.req.raw, raw, segments, row)));
    };
    // Hono answers HEAD through the GET rows.
    if (row.methods === null) app.all(row.pattern, handle);
    else app.on([...row.methods].filter((m) => m !== "HEAD"), row.pattern, handle);
  }
  app.notFound((c) => answered(c.env, unmatched(c.req.raw)));
  app.onError((error) => {
    throw error;
  });
  return (req, raw) => {
    const env: Bound["Bindings"] = { raw, answer: undefined };
    const out = app.fetch(req, env);
    // Hono answers HEAD with a bodiless copy of the GET row's response; the row's own response
    // goes back instead, since error-map.ts knows an error by its response object.
    return req.method === "HEAD" ? Promise.resolve(out).then((copy) => env.answer ?? copy) : out;
  };
}

type Bound = { Bindings: { raw: string; answer: Response | Promise<Response> | undefined } };

function answered(env: Bound["Bindings"], res: Response | Promise<Response>): Response | Promise<Response> {
  env.answer = res;
  return res;
}
