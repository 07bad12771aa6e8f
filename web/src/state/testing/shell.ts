// Runs a command line in bash, as a person pasting a copied snippet would. For unit tests only.
import { execFileSync } from "node:child_process";

export function sh(commandLine: string): string {
  return execFileSync("bash", ["-c", commandLine], { encoding: "utf8", timeout: 10_000 });
}
