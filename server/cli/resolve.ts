// Where each option's value comes from: its flag, else its environment variable, else the config
// file (--config or URSA_CONFIG), else its default. A bad value is refused with the name of the
// place it came from, so the user knows which of the four to fix.

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { bool, text, ValueError, type Parser } from "./values";

/** One option as config.ts declares it: its flag, environment variable, default and parser. */
export interface OptionSpec {
  flag: string;
  env: string;
  /** What the value looks like in --help; empty for a flag that takes none (a boolean). */
  value: string;
  default: string;
  help: string;
  parse?: Parser<unknown>;
  secret?: boolean;
}

/** A mistake in how ursa was invoked: one line for the user, exit status 2. */
export class ConfigError extends Error {}

export type Source = "flag" | "env" | "file" | "default";

export interface ResolvedOption {
  spec: OptionSpec;
  /** The Config field: the flag in camelCase. */
  key: string;
  /** The text as given (or the default's), before parsing. */
  raw: string;
  value: unknown;
  source: Source;
}

export interface Resolved {
  options: ResolvedOption[];
  /** The config file read, if any. */
  file: string | null;
}

export interface ResolveInput {
  argv: string[];
  env: Record<string, string | undefined>;
  fdLimit: number;
  readFile?: (path: string) => string;
}

export const CONFIG_FLAG = "config";
export const CONFIG_ENV = "URSA_CONFIG";

export const camel = (flag: string) => flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Parses argv, the environment and the config file against `options`, in table order. */
export function resolveOptions(options: readonly OptionSpec[], input: ResolveInput) {
  const values = parseFlags(options, input.argv);
  if (values.help) return { kind: "help" as const };
  if (values.version) return { kind: "version" as const };
  const file = (values[CONFIG_FLAG] as string | undefined) ?? nonEmpty(input.env[CONFIG_ENV]) ?? null;
  const fromFile = file === null ? new Map<string, string>() : readConfigFile(options, file, input.readFile ?? ((p) => readFileSync(p, "utf8")));

  const config: Record<string, unknown> = {};
  const resolved: ResolvedOption[] = [];
  for (const spec of options) {
    const key = camel(spec.flag);
    const flagValue = values[spec.flag];
    const envValue = nonEmpty(input.env[spec.env]);
    const fileValue = fromFile.get(spec.flag);
    const [raw, source]: [string, Source] =
      flagValue !== undefined ? [flagValue === true ? "true" : String(flagValue), "flag"]
      : envValue !== undefined ? [envValue, "env"]
      : fileValue !== undefined ? [fileValue, "file"]
      : [spec.default, "default"];
    let value: unknown;
    try {
      value = parserOf(spec)(raw, { fdLimit: input.fdLimit, config });
    } catch (error) {
      if (!(error instanceof ValueError)) throw error;
      throw new ConfigError(`${sourceLabel(spec, source, file)} ${error.message}, got ${JSON.stringify(raw)}`);
    }
    config[key] = value;
    resolved.push({ spec, key, raw, value, source });
  }
  const result = { options: resolved, file } satisfies Resolved;
  if (values["print-config"]) return { kind: "print-config" as const, resolved: result };
  return { kind: "run" as const, config, resolved: result };
}

function parserOf(spec: OptionSpec): Parser<unknown> {
  return spec.parse ?? (spec.value === "" ? bool : text);
}

const nonEmpty = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);

/** How an error names where a value came from: the flag, the variable, or the key and its file. */
export function sourceLabel(spec: OptionSpec, source: Source, file: string | null): string {
  switch (source) {
    case "flag":
      return `--${spec.flag}`;
    case "env":
      return spec.env;
    case "file":
      return `${spec.flag} in ${file}`;
    case "default":
      return `the default of --${spec.flag}`;
  }
}

function parseFlags(options: readonly OptionSpec[], argv: string[]): Record<string, string | boolean | undefined> {
  try {
    return parseArgs({
      args: argv,
      options: {
        ...Object.fromEntries(options.map((o) => [o.flag, { type: o.value ? ("string" as const) : ("boolean" as const) }])),
        [CONFIG_FLAG]: { type: "string" },
        "print-config": { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "v" },
      },
      strict: true,
    }).values;
  } catch (error) {
    throw new ConfigError(flagError(error as Error & { code?: string }));
  }
}

/** node:util's messages, made one short line each. */
function flagError(error: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(error.message)?.[1] ?? "";
  switch (error.code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${quoted}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${JSON.stringify(quoted)}; options start with --`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const flag = quoted.split(" ")[0];
      return error.message.includes("does not take") ? `${flag} takes no value` : `${flag} needs a value`;
    }
    default:
      return error.message;
  }
}

/**
 * A TOML or JSON file whose keys are the flags' names (`max-body-bytes`, or `max_body_bytes`).
 * Numbers and booleans are taken as the text they are written as; a list is joined with commas,
 * as a flag would carry it.
 */
function readConfigFile(options: readonly OptionSpec[], path: string, read: (path: string) => string): Map<string, string> {
  let content: string;
  try {
    content = read(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new ConfigError(`cannot read the config file ${path}: ${code === "ENOENT" ? "no such file" : (error as Error).message}`);
  }
  let parsed: unknown;
  try {
    if (path.endsWith(".toml")) parsed = Bun.TOML.parse(content);
    else if (path.endsWith(".json")) parsed = JSON.parse(content);
    else throw new ConfigError(`the config file ${path} must end in .toml or .json`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`the config file ${path} is not valid ${path.endsWith(".toml") ? "TOML" : "JSON"}: ${(error as Error).message}`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new ConfigError(`the config file ${path} must hold a table of options`);
  const known = new Set(options.map((o) => o.flag));
  const out = new Map<string, string>();
  for (const [rawKey, value] of Object.entries(parsed)) {
    const key = rawKey.replaceAll("_", "-");
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      throw new ConfigError(`${JSON.stringify(rawKey)} in ${path} is a table; options are top-level keys named like the flags (port = 4437)`);
    }
    if (!known.has(key)) throw new ConfigError(`unknown option ${JSON.stringify(rawKey)} in ${path}`);
    out.set(key, fileValue(value, `${key} in ${path}`));
  }
  return out;
}

function fileValue(value: unknown, label: string): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === "string" || typeof v === "number")) return value.join(",");
  throw new ConfigError(`${label} must be a string, a number, a boolean or a list, got ${JSON.stringify(value)}`);
}
