/**
 * The uptime and the load averages as the kernel's own proc files print them,
 * asked of the kernel directly: the time since boot from the clock that
 * /proc/uptime reads (CLOCK_BOOTTIME, answered in user space, with no system
 * call), and the load from sysinfo(2), rounded as /proc/loadavg rounds it.
 * A call then reads one proc file (meminfo) instead of three.
 *
 * Only where those files are the kernel's own: a container's /proc/uptime and
 * /proc/loadavg may be files of another file system mounted over them (lxcfs
 * says the container's own figures there), and a test points the proc root at
 * files of its own. There, and where libc cannot be reached, the files are read.
 */
import { dlopen, FFIType } from "bun:ffi";
import { statfsSync } from "node:fs";
import { join } from "node:path";

/** PROC_SUPER_MAGIC: what statfs says of a file of the proc file system. */
const PROC_FS = 0x9fa0;
const CLOCK_BOOTTIME = 7;
/** FSHIFT: the kernel keeps a load average as a fixed-point number with this many fraction bits */
const FSHIFT = 11;
const FIXED_1 = 1 << FSHIFT;
/** FIXED_1/200 in the kernel's integer arithmetic */
const HALF_HUNDREDTH = Math.floor(FIXED_1 / 200);
/** sysinfo(2) gives each load shifted left to SI_LOAD_SHIFT (16) fraction bits */
const SI_LOAD_SHIFT = 16;

interface Libc {
  clock_gettime: (clock: number, ts: Uint8Array) => number;
  sysinfo: (info: Uint8Array) => number;
}

let libc: Libc | null | undefined;
/** struct timespec; struct sysinfo is 112 bytes on 64-bit Linux, its loads at 8, 16 and 24 */
const timespec = new Uint8Array(16);
const timespecView = new DataView(timespec.buffer);
const info = new Uint8Array(128);
const infoView = new DataView(info.buffer);

function loadLibc(): Libc | null {
  if (libc !== undefined) return libc;
  libc = null;
  // the layouts above are those of 64-bit Linux
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return libc;
  try {
    const { symbols } = dlopen("libc.so.6", {
      clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      sysinfo: { args: [FFIType.ptr], returns: FFIType.i32 },
    });
    libc = { clock_gettime: (c, ts) => symbols.clock_gettime(c, ts), sysinfo: (i) => symbols.sysinfo(i) };
  } catch {
    libc = null;
  }
  return libc;
}

/** Whether a proc root's uptime and loadavg are the kernel's own files, asked once per root. */
const kernelOwn = new Map<string, boolean>();

function kernelFiles(procRoot: string): boolean {
  let own = kernelOwn.get(procRoot);
  if (own === undefined) {
    own = ["uptime", "loadavg"].every((name) => {
      try {
        return Number(statfsSync(join(procRoot, name)).type) === PROC_FS;
      } catch {
        return false;
      }
    });
    if (kernelOwn.size < 64) kernelOwn.set(procRoot, own);
  }
  return own;
}

/** Seconds since boot, as the first figure of `<procRoot>/uptime`; undefined where that file is to be read. */
export function bootSeconds(procRoot: string): number | undefined {
  const c = loadLibc();
  if (c === null || !kernelFiles(procRoot) || c.clock_gettime(CLOCK_BOOTTIME, timespec) !== 0) return undefined;
  // seconds and nanoseconds, each read as two 32-bit halves (no BigInt made): both are far below 2^53
  const seconds = timespecView.getUint32(0, true) + timespecView.getInt32(4, true) * 0x100000000;
  return seconds + timespecView.getUint32(8, true) / 1e9;
}

/**
 * The 1, 5 and 15 minute load averages, as the first three figures of `<procRoot>/loadavg` (rounded to the
 * hundredth as the kernel rounds them there); undefined where that file is to be read.
 */
export function loadAverages(procRoot: string): number[] | undefined {
  const c = loadLibc();
  if (c === null || !kernelFiles(procRoot) || c.sysinfo(info) !== 0) return undefined;
  const load = [0, 0, 0];
  for (let i = 0; i < 3; i++) {
    // as the kernel prints it: the fixed-point figure plus half a hundredth, its whole part and its hundredths
    const at = 8 + 8 * i;
    const loads = infoView.getUint32(at, true) + infoView.getUint32(at + 4, true) * 0x100000000;
    const fixed = loads / 2 ** (SI_LOAD_SHIFT - FSHIFT) + HALF_HUNDREDTH;
    const whole = Math.floor(fixed / FIXED_1);
    const hundredths = Math.floor(((fixed % FIXED_1) * 100) / FIXED_1);
    load[i] = (whole * 100 + hundredths) / 100;
  }
  return load;
}
