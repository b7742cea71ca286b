/**
 * statx(2) and fstatfs(2) through libc, each into one buffer kept for the
 * process: the per-call identity checks (the path gate's directories and
 * roots, gate.db's, the record's and the checkpoint's names) ask the kernel
 * for a few numbers, where node:fs builds a whole Stats object (four Dates)
 * for each ask. Also openat(2) under an opened directory, which node:fs
 * has no call for. libc is loaded at the first ask, not with the module, so a
 * start that asks nothing pays nothing. Where libc or statx cannot be reached
 * (not Linux with glibc), `statxAt` and `fstatfsOf` say so with null, and the
 * caller answers from node:fs instead, for the life of the process.
 *
 * A field read from the buffer is spelled as node:fs spells it: a device as
 * glibc's makedev, a time in ms, a 64-bit count as two halves with no BigInt.
 */

type StatxFn = (dirfd: number, path: Uint8Array, flags: number, mask: number, buf: Uint8Array) => number;
type FstatfsFn = (fd: number, buf: Uint8Array) => number;
type OpenatFn = (dirfd: number, path: Uint8Array, flags: number) => number;

/** The directory descriptor meaning "the current directory", which an absolute path ignores. */
export const AT_FDCWD = -100;
export const AT_SYMLINK_NOFOLLOW = 0x100;
/** with an empty path, the descriptor itself is asked about */
export const AT_EMPTY_PATH = 0x1000;
/** STATX_BASIC_STATS: type, mode, nlink, uid, gid, times, ino, size, blocks */
export const STATX_BASIC_STATS = 0x7ff;
/** STATX_BTIME: the file's creation time, where its file system keeps one */
export const STATX_BTIME = 0x800;
/** STATX_MNT_ID: the id of the mount the file was reached through (Linux 5.8) */
export const STATX_MNT_ID = 0x1000;
/** STATX_ATTR_MOUNT_ROOT: in stx_attributes, the file is the root of a mount */
const STATX_ATTR_MOUNT_ROOT = 0x2000;
/** O_CLOEXEC on Linux: no descriptor is handed to a program rta runs */
const O_CLOEXEC = 0o2000000;
/** STATX_TYPE | STATX_INO | STATX_SIZE */
export const STATX_TYPE_INO_SIZE = 0x0001 | 0x0100 | 0x0200;

let calls: { statx: StatxFn; fstatfs: FstatfsFn; openat: OpenatFn } | null | undefined;

function load(): typeof calls {
  if (calls !== undefined) return calls;
  calls = null;
  if (process.platform !== "linux") return calls;
  try {
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      fstatfs: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      // declared with its mode, as a call that creates nothing passes it: 0
      openat: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32], returns: FFIType.i32 },
    });
    calls = {
      statx: (dirfd, path, flags, mask, buf) => symbols.statx(dirfd, path, flags, mask, buf),
      fstatfs: (fd, buf) => symbols.fstatfs(fd, buf),
      openat: (dirfd, path, flags) => symbols.openat(dirfd, path, flags | O_CLOEXEC, 0),
    };
  } catch {
    calls = null; // no libc statx here: node:fs answers
  }
  return calls;
}

/** struct statx is 256 bytes on every architecture. */
const statxBuffer = new Uint8Array(256);
const statxView = new DataView(statxBuffer.buffer);
/** struct statfs on 64-bit Linux is 120 bytes; room for more. */
const statfsBuffer = new Uint8Array(128);
const statfsView = new DataView(statfsBuffer.buffer);
const EMPTY_PATH = new Uint8Array(1);

/** A path as statx takes it: its UTF-8 bytes and a NUL. Made once for a path asked about often. */
export function cPath(path: string): Uint8Array {
  return Buffer.from(`${path}\0`, "utf8");
}

/** The name a cPath spells, for node:fs. */
export function pathOf(path: Uint8Array): string {
  return Buffer.from(path.buffer, path.byteOffset, path.byteLength - 1).toString("utf8");
}

/** Whether statx can be asked in this process; when false, node:fs answers every ask instead. */
export function hasStatx(): boolean {
  return load() !== null;
}

/**
 * statx of `path` (a cPath) under `flags` and `mask`, or of descriptor `fd`
 * when `path` is null: the view of the kept buffer holding the answer, good
 * until the next ask; undefined when the kernel refused (not there, not
 * searchable, any error). Refuses nothing. Call only when hasStatx().
 */
export function statxAt(path: Uint8Array | null, flags: number, mask: number, fd = AT_FDCWD): DataView | undefined {
  const c = load();
  if (!c) return undefined;
  const ok =
    path === null
      ? c.statx(fd, EMPTY_PATH, flags | AT_EMPTY_PATH, mask, statxBuffer)
      : c.statx(fd, path, flags, mask, statxBuffer);
  return ok === 0 ? statxView : undefined;
}

/**
 * openat(2) of `path` (a cPath) under the opened directory `dirfd`, with `flags` and close-on-exec (as node:fs opens
 * every descriptor): the new descriptor, or -1 when the kernel refused, or when libc is not here (the caller then
 * opens it by node:fs, whose error says why). Creates nothing. Refuses nothing.
 */
export function openAt(dirfd: number, path: Uint8Array, flags: number): number {
  const c = load();
  return c ? c.openat(dirfd, path, flags) : -1;
}

/** fstatfs of `fd`: the view of the kept buffer, or undefined when it was refused; null when libc is not here. */
export function fstatfsOf(fd: number): DataView | undefined | null {
  const c = load();
  if (!c) return null;
  return c.fstatfs(fd, statfsBuffer) === 0 ? statfsView : undefined;
}

/** An unsigned 64-bit field, read as two halves: no BigInt is made. */
export function u64(view: DataView, at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 0x100000000;
}

/** The fields of a statx answer, as node:fs spells them. */
export const stx = {
  /** which fields the kernel filled in */
  mask: (v: DataView) => v.getUint32(0, true),
  mode: (v: DataView) => v.getUint16(0x1c, true),
  nlink: (v: DataView) => v.getUint32(0x10, true),
  uid: (v: DataView) => v.getUint32(0x14, true),
  gid: (v: DataView) => v.getUint32(0x18, true),
  ino: (v: DataView) => u64(v, 0x20),
  size: (v: DataView) => u64(v, 0x28),
  /** the last change to the inode, in ms: its seconds (signed, 64 bits) and nanoseconds */
  ctimeMs: (v: DataView) => timeMs(v, 0x60),
  /** the last access, the birth and the last write, in ms, as node:fs gives them */
  atimeMs: (v: DataView) => timeMs(v, 0x40),
  birthtimeMs: (v: DataView) => timeMs(v, 0x50),
  mtimeMs: (v: DataView) => timeMs(v, 0x70),
  blksize: (v: DataView) => v.getUint32(0x04, true),
  blocks: (v: DataView) => u64(v, 0x30),
  rdev: (v: DataView) => makedev(v.getUint32(0x80, true), v.getUint32(0x84, true)),
  dev: (v: DataView) => makedev(v.getUint32(0x88, true), v.getUint32(0x8c, true)),
  /** whether the file is the root of a mount, where the kernel says it knows (STATX_ATTR_MOUNT_ROOT, Linux 5.8) */
  mountRoot: (v: DataView) => (v.getUint32(0x38, true) & v.getUint32(0x08, true) & STATX_ATTR_MOUNT_ROOT) !== 0,
  /** the mount's id, where the mask says the kernel gave it (STATX_MNT_ID) */
  mountId: (v: DataView) => ((v.getUint32(0, true) & STATX_MNT_ID) !== 0 ? u64(v, 0x90) : undefined),
};

/** A statx timestamp at `at` in ms: its seconds (signed, 64 bits) and nanoseconds. */
function timeMs(v: DataView, at: number): number {
  return (v.getUint32(at, true) + v.getInt32(at + 4, true) * 0x100000000) * 1000 + v.getUint32(at + 8, true) / 1e6;
}

/** glibc's makedev, as node:fs spells a device number. */
function makedev(major: number, minor: number): number {
  return (
    (minor & 0xff) + (major & 0xfff) * 0x100 + (minor >>> 8) * 0x100000 + Math.floor(major / 0x1000) * 0x100000000000
  );
}
