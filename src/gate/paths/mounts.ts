/**
 * Whether this process's mount table changed, asked of the kernel with no
 * path looked up: /proc/self/mountinfo, kept open, is polled with no wait,
 * and the kernel reports a change (POLLPRI) once per change of the mount
 * namespace since the last poll of that descriptor: a mount, an unmount, a
 * bind, a move, one propagated from elsewhere. A count of the changes seen
 * lets every asker tell whether one came since its own last look, though a
 * poll tells only the first to ask. poll(2) is reached through libc, loaded
 * at the first ask; where it cannot be (not Linux with glibc, no /proc),
 * undefined says the table cannot be watched so, and the caller looks at
 * what a mount would change itself.
 */
import { openSync } from "node:fs";

type PollFn = (fds: Uint8Array, nfds: number, timeout: number) => number;

/** POLLPRI and POLLERR: what the kernel sets on a mount table's descriptor when the table changed. */
const CHANGED = 0x2 | 0x8;
/** POLLNVAL: the descriptor is not open (closed under the watch), so no poll of it can tell a change. */
const NOT_OPEN = 0x20;

let watched: { poll: PollFn; fds: Uint8Array; view: DataView } | null | undefined;
/** How many changes of the mount table were seen since the descriptor was opened. */
let changes = 0;
/** /proc/self/mountinfo, opened by watchMounts; null where it cannot be. */
let table: number | null | undefined;

/**
 * Opens the mount table's descriptor, once in the process: changes after this are seen by mountChanges. A gate that
 * keeps places calls it as it is made, so the descriptor is the process's from then on, not one of a call's. Refuses
 * nothing.
 */
export function watchMounts(): void {
  if (table !== undefined) return;
  try {
    table = process.platform === "linux" ? openSync("/proc/self/mountinfo", "r") : null;
  } catch {
    table = null; // no /proc: the caller looks itself
  }
}

function load(): typeof watched {
  if (watched !== undefined) return watched;
  watchMounts();
  watched = null;
  if (table === null || table === undefined) return watched;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      poll: { args: [FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i32 },
    });
    // struct pollfd: int fd, short events, short revents
    const fds = new Uint8Array(8);
    const view = new DataView(fds.buffer);
    view.setInt32(0, table, true);
    view.setInt16(4, CHANGED, true);
    watched = { poll: (f, n, t) => symbols.poll(f, n, t), fds, view };
  } catch {
    watched = null; // no libc poll: the caller looks itself
  }
  return watched;
}

/**
 * How many times the mount table was seen to change, asked of the kernel now: a count that differs from one
 * taken before says the table changed since. Undefined where it cannot be watched so (and then, at every ask).
 * Refuses nothing.
 */
export function mountChanges(): number | undefined {
  const w = load();
  if (!w) return undefined;
  w.view.setInt16(6, 0, true);
  const n = w.poll(w.fds, 1, 0);
  if (n < 0) return undefined;
  const seen = w.view.getInt16(6, true);
  // a descriptor lost is never told of a change: said as a table that cannot be watched, so each place is looked at
  if (n > 0 && (seen & NOT_OPEN) !== 0) return undefined;
  if (n > 0 && (seen & CHANGED) !== 0) changes++;
  return changes;
}
