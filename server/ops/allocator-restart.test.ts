import { expect, test } from "bun:test";
import { PURGE_DELAY_MS, PURGE_DELAY_VAR, restartEnv } from "./allocator-restart";

const compiled = { platform: "linux", main: "/$bunfs/root/ursa" };

test("the compiled binary restarts once, with the user's environment and the purge delay added", () => {
  const env = restartEnv({ ...compiled, env: { PATH: "/usr/bin", URSA_PORT: "4437", EMPTY: "", GONE: undefined } });
  expect(env).toEqual({ PATH: "/usr/bin", URSA_PORT: "4437", EMPTY: "", [PURGE_DELAY_VAR]: PURGE_DELAY_MS });
  expect(restartEnv({ ...compiled, env: env! })).toBeNull();
});

test("a delay the user set wins, and nothing restarts", () => {
  expect(restartEnv({ ...compiled, env: { [PURGE_DELAY_VAR]: "10" } })).toBeNull();
});

test("no restart from source or on Windows", () => {
  expect(restartEnv({ platform: "linux", main: "/work/ursa/server/main.ts", env: {} })).toBeNull();
  expect(restartEnv({ platform: "win32", main: "/$bunfs/root/ursa", env: {} })).toBeNull();
  expect(restartEnv({ platform: "darwin", main: "/$bunfs/root/ursa", env: {} })).not.toBeNull();
});
