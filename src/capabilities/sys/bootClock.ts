/**
 * The time since boot as /proc/uptime gives it, from the kernel's boot clock
 * (clock_gettime(CLOCK_BOOTTIME) through libc, which the vDSO answers with no
 * syscall) instead of a read of that file. /proc/uptime prints the same
 * clock, time namespace and all, to the hundredth of a second, and so does
 * this. libc is loaded at the first ask; where it cannot be (not Linux with
 * glibc), the caller reads the file.
 */

type ClockGettime = (clock: number, buf: Uint8Array) => number;

/** Linux's CLOCK_BOOTTIME: CLOCK_MONOTONIC, with the time the machine was suspended. */
const CLOCK_BOOTTIME = 7;

let clock: ClockGettime | null | undefined;

function load(): ClockGettime | null {
  if (clock !== undefined) return clock;
  clock = null;
  if (process.platform !== "linux") return clock;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      clock_gettime: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    });
    clock = (id, buf) => symbols.clock_gettime(id, buf);
  } catch {
    clock = null; // no libc here: the file answers
  }
  return clock;
}

/** struct timespec on 64-bit Linux: seconds and nanoseconds, 8 bytes each. */
const timespec = new Uint8Array(16);
const view = new DataView(timespec.buffer);

/**
 * Seconds since boot to the hundredth, as /proc/uptime's first field reads; undefined where the clock cannot be
 * asked. Refuses nothing.
 */
export function bootSeconds(): number | undefined {
  const c = load();
  if (c === null || c(CLOCK_BOOTTIME, timespec) !== 0) return undefined;
  const seconds = view.getUint32(0, true) + view.getUint32(4, true) * 0x100000000;
  const hundredths = Math.floor(view.getUint32(8, true) / 10_000_000);
  // one division of whole numbers: the same double a parse of "<seconds>.<hundredths>" gives
  return (seconds * 100 + hundredths) / 100;
}
