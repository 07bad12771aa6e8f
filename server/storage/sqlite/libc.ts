// The few libc calls ursa makes through bun:ffi (which the compiled binary keeps), on Linux with
// glibc only: OFD locks (ofd-lock.ts) and fallocate (disk-reserve.ts). Elsewhere `libc()` is null
// and the callers use what Node's fs offers instead.

import { dlopen, FFIType, read } from "bun:ffi";

function open() {
  return dlopen("libc.so.6", {
    fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    fallocate: { args: [FFIType.i32, FFIType.i32, FFIType.i64, FFIType.i64], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
}

export type Libc = ReturnType<typeof open>["symbols"];

let loaded: Libc | null | undefined;

/** libc's functions, or null where they cannot be loaded (not Linux, or not glibc). */
export function libc(): Libc | null {
  if (loaded === undefined) {
    try {
      loaded = process.platform === "linux" ? open().symbols : null;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** errno after a call that returned -1: read at once, before anything else can set it. */
export function errno(c: Libc): number {
  return read.i32(c.__errno_location()!, 0);
}

export const EAGAIN = 11;
export const EACCES = 13;
export const ENOSPC = 28;
