// An open-file-description lock (Linux fcntl F_OFD_SETLK) on one byte of the database file, taken
// through bun:ffi, which the compiled binary keeps. The kernel holds it for as long as the
// descriptor is open and drops it when the process dies, however it dies; and since it is on the
// database file itself, no file can be deleted to get around it.
//
// Why OFD and not a classic POSIX lock (F_SETLK): a POSIX lock belongs to the process, and closing
// *any* descriptor the process has on the file drops it. SQLite opens and closes descriptors on
// ursa.sqlite as connections come and go (the checkpoint thread, the snapshot reader, the integrity
// check), so a POSIX lock could vanish under ursa. An OFD lock belongs to its own descriptor only.
// The two kinds still conflict where their ranges overlap, so the byte is one SQLite never locks:
// SQLite's unix VFS locks the PENDING byte at 0x40000000, the RESERVED byte after it and the 510
// SHARED bytes after that, all on the database file (WAL mode adds locks on the -shm file only).

import { ptr } from "bun:ffi";
import { closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import { EACCES, EAGAIN, errno, libc } from "./libc";

/** The locked byte: 4 KiB past SQLite's PENDING byte, clear of its 512 lock bytes. */
export const LOCK_OFFSET = 0x4000_0000 + 0x1000;

// <asm-generic/fcntl.h>, the same on x86-64 and arm64.
const F_OFD_SETLK = 37;
const F_WRLCK = 1;
const SEEK_SET = 0;

/**
 * Files this process holds the lock on, as device:inode. A second store on one of them in this
 * process is refused without opening the file: closing that descriptor again would drop the
 * POSIX locks SQLite holds on it for the first store.
 */
const held = new Set<string>();
const fileId = (s: { dev: number; ino: number }) => `${s.dev}:${s.ino}`;

/** A struct flock (Linux x86-64 and arm64: l_type, l_whence as shorts, l_start, l_len as off_t, l_pid) for the write lock. */
function writeLock(): Uint8Array {
  const bytes = new Uint8Array(32);
  const view = new DataView(bytes.buffer);
  view.setInt16(0, F_WRLCK, true);
  view.setInt16(2, SEEK_SET, true);
  view.setBigInt64(8, BigInt(LOCK_OFFSET), true);
  view.setBigInt64(16, 1n, true);
  // l_pid must be 0 for OFD locks.
  return bytes;
}

export type OfdResult = { kind: "locked"; release(): void } | { kind: "busy" } | { kind: "unsupported"; why: string };

/**
 * Opens `path` (creating it if it is missing) and takes the write lock on LOCK_OFFSET. "busy" if
 * another descriptor holds it (another process, or another store in this one); "unsupported"
 * where OFD locks are not available (not Linux with glibc, a kernel before 3.15, a file system
 * without locks), and the caller falls back to another lock.
 */
export function ofdLock(path: string): OfdResult {
  const c = libc();
  if (c === null) return { kind: "unsupported", why: process.platform === "linux" ? "libc.so.6 cannot be loaded" : `no OFD locks on ${process.platform}` };
  const existing = statSync(path, { throwIfNoEntry: false });
  if (existing && held.has(fileId(existing))) return { kind: "busy" };
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  if (c.fcntl(fd, F_OFD_SETLK, ptr(writeLock())) === 0) {
    const id = fileId(fstatSync(fd));
    held.add(id);
    return {
      kind: "locked",
      // Closing the descriptor drops the lock (and, as closing any descriptor on the file does, the
      // process's POSIX locks on it: the store closes SQLite's connections first).
      release: () => {
        held.delete(id);
        closeSync(fd);
      },
    };
  }
  const error = errno(c);
  closeSync(fd);
  if (error === EAGAIN || error === EACCES) return { kind: "busy" };
  return { kind: "unsupported", why: `fcntl(F_OFD_SETLK) failed with errno ${error}` };
}
