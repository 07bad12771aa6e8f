// --help and --print-config, both rendered from the options table.

import { CONFIG_ENV, CONFIG_FLAG, sourceLabel, type OptionSpec, type Resolved } from "./resolve";

const LEFT = 36;
const WIDTH = 100;

/** Words of `text` in lines of at most `width` characters. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function entry(left: string, help: string): string[] {
  const [first = "", ...rest] = wrap(help, WIDTH - LEFT);
  return [`${left.length <= LEFT - 2 ? left.padEnd(LEFT) : `${left}\n${"".padEnd(LEFT)}`}${first}`, ...rest.map((l) => "".padEnd(LEFT) + l)];
}

export function renderHelp(options: readonly OptionSpec[], version: string): string {
  const lines = [
    `ursa ${version}: a Durable Streams server in one file`,
    "",
    "Usage: ursa [options]",
    "",
    ...wrap(
      "Each option can also be set by its environment variable, or in a TOML or JSON config file under the flag's name (port = 4437). A flag wins over the environment, the environment over the file, the file over the default.",
      WIDTH,
    ),
    "",
    "Options:",
  ];
  for (const o of options) {
    lines.push(...entry(`  --${o.flag}${o.value ? ` ${o.value}` : ""}`, o.help));
    lines.push(...entry("", `default ${shownDefault(o)}; env ${o.env}`));
  }
  lines.push(
    ...entry(`  --${CONFIG_FLAG} FILE`, "read options from a .toml or .json file"),
    ...entry("", `env ${CONFIG_ENV}`),
    ...entry("  --print-config", "print the configuration in effect, and where each value came from, then exit"),
    ...entry("  -h, --help", "show this help"),
    ...entry("  -v, --version", "print the version"),
  );
  return lines.join("\n");
}

/** How --help and the README show a default: an empty one (an option off unless given) is "none". */
export const shownDefault = (o: OptionSpec): string => (o.default === "" ? "none" : o.default);

/** Masks a secret's value, showing only that one is set. */
export const MASK = "********";

/**
 * The configuration in effect as a TOML config file, each value's origin in a comment. Values are
 * written as given (`60s`, `auto`), so the output can be saved and used with --config; what an
 * `auto` came to is in the comment.
 */
export function renderConfig(resolved: Resolved, version: string): string {
  const lines = [`# ursa ${version}: the configuration in effect${resolved.file ? `, with ${resolved.file}` : ""}`];
  for (const o of resolved.options) {
    const shown = o.spec.secret && o.raw !== "" ? MASK : o.raw;
    const value = /^[0-9]+$/.test(shown) || ((shown === "true" || shown === "false") && typeof o.value === "boolean") ? shown : JSON.stringify(shown);
    const origin = o.source === "default" ? "default" : sourceLabel(o.spec, o.source, resolved.file);
    const note = o.raw === "auto" ? `${origin}; auto is ${String(o.value)} here` : origin;
    lines.push(`${`${o.spec.flag} = ${value}`.padEnd(44)} # ${note}`);
  }
  return lines.join("\n");
}
