// Where the store reports what an operator should hear of (a full disk, a damaged database): the
// server's log in the binary; stderr, without debug lines, when nothing else is given (tests, tools).

import type { LogFields, LogLevel } from "../ops/log";

export type StoreLog = (level: LogLevel, message: string, fields?: LogFields) => void;

export const stderrLog: StoreLog = (level, message, fields = {}) => {
  if (level === "debug") return;
  const rest = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}=${JSON.stringify(v)}`)
    .join("");
  console.error(`ursa: ${level}: ${message}${rest}`);
};
