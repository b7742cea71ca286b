/**
 * The uptime as the kernel's /proc/uptime says it, asked of the clock that
 * file reads (CLOCK_BOOTTIME, time namespaces included), which libc answers in
 * user space with no system call: a call to sys.info reads two proc files
 * instead of three.
 *
 * Only where /proc/uptime is the kernel's own file: a container's may be one
 * of another file system mounted over it (lxcfs says the container's own
 * uptime there), and a test points the proc root at files of its own. There,
 * and where libc cannot be reached, the file is read.
 */
import { dlopen, FFIType } from "bun:ffi";
import { statfsSync } from "node:fs";
import { join } from "node:path";

/** PROC_SUPER_MAGIC: what statfs says of a file of the proc file system. */
const PROC_FS = 0x9fa0;
const CLOCK_BOOTTIME = 7;

type ClockGettime = (clock: number, ts: Uint8Array) => number;

let clockGettime: ClockGettime | null | undefined;
/** struct timespec of 64-bit Linux: seconds and nanoseconds, 64 bits each */
const timespec = new Uint8Array(16);
const timespecView = new DataView(timespec.buffer);

function loadClock(): ClockGettime | null {
  if (clockGettime !== undefined) return clockGettime;
  clockGettime = null;
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return clockGettime;
  try {
    const { symbols } = dlopen("libc.so.6", {
      clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    });
    clockGettime = (clock, ts) => symbols.clock_gettime(clock, ts);
  } catch {
    clockGettime = null; // no libc here: the file is read
  }
  return clockGettime;
}

/** Whether a proc root's uptime file is the kernel's own, asked once per root. */
const kernelOwn = new Map<string, boolean>();

function kernelUptime(procRoot: string): boolean {
  let own = kernelOwn.get(procRoot);
  if (own === undefined) {
    try {
      own = Number(statfsSync(join(procRoot, "uptime")).type) === PROC_FS;
    } catch {
      own = false;
    }
    if (kernelOwn.size < 64) kernelOwn.set(procRoot, own);
  }
  return own;
}

/** Seconds since boot, as the first figure of `<procRoot>/uptime` says them; undefined where that file is to be read. */
export function bootSeconds(procRoot: string): number | undefined {
  const clock = loadClock();
  if (clock === null || !kernelUptime(procRoot) || clock(CLOCK_BOOTTIME, timespec) !== 0) return undefined;
  // seconds and nanoseconds, each read as two 32-bit halves (no BigInt made): both are far below 2^53
  const seconds = timespecView.getUint32(0, true) + timespecView.getInt32(4, true) * 0x100000000;
  return seconds + timespecView.getUint32(8, true) / 1e9;
}
