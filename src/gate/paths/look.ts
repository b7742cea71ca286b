/**
 * A look at a file's identity and state that builds no `Stats`: Linux's
 * statx(2) through libc, into one reused buffer, for the checks the path gate
 * makes at every call (is this directory still the one it was, unchanged?).
 * Node's stat builds a Stats object with four Dates each time; this answers
 * the few numbers asked. Where libc's statx cannot be reached (another OS, an
 * old libc), the same answer comes from node:fs.
 *
 * The numbers are spelled as node:fs spells them (`dev` as glibc's makedev,
 * times in ms), so a look can be held against a Stats taken before; were
 * they ever spelled otherwise, a look would only ever say "changed".
 */
import { lstatSync, type Stats, statSync } from "node:fs";

/** What a look says of a file: enough to tell it is the same inode, unchanged, with the same owner and mode. */
export interface Look {
  dev: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
  nlink: number;
  size: number;
  /** the last change to the inode (a write, a chmod, a chown, an entry made or removed in a directory), in ms */
  ctimeMs: number;
}

/** The directory descriptor meaning "the current directory", which an absolute path ignores. */
const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
/** STATX_BASIC_STATS: type, mode, nlink, uid, gid, times, ino, size, blocks */
const STATX_BASIC_STATS = 0x7ff;
/** struct statx is 256 bytes on every architecture */
const STATX_BYTES = 256;

type Statx = (dirfd: number, path: Uint8Array, flags: number, mask: number, buf: Uint8Array) => number;

let statx: Statx | null | undefined;
const buffer = new Uint8Array(STATX_BYTES);
const view = new DataView(buffer.buffer);

function loadStatx(): Statx | null {
  if (statx !== undefined) return statx;
  statx = null;
  if (process.platform !== "linux") return statx;
  try {
    // loaded when a path is first opened, not with the module: a start that opens none pays nothing for it
    const { dlopen, FFIType } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
    });
    statx = (dirfd, path, flags, mask, buf) => symbols.statx(dirfd, path, flags, mask, buf);
  } catch {
    statx = null; // no libc statx here: node:fs answers
  }
  return statx;
}

/** A path as statx takes it: its UTF-8 bytes and a NUL. Made once for a path looked at often. */
export function cPath(path: string): Uint8Array {
  return Buffer.from(`${path}\0`, "utf8");
}

/**
 * A look at `path` (made by cPath), following a link at its end unless `noFollow`; undefined when it cannot be
 * looked at (not there, not searchable, any error). Refuses nothing.
 */
export function look(path: Uint8Array, noFollow = false): Look | undefined {
  const call = loadStatx();
  if (call === null) return fromNode(path, noFollow);
  if (call(AT_FDCWD, path, noFollow ? AT_SYMLINK_NOFOLLOW : 0, STATX_BASIC_STATS, buffer) !== 0) return undefined;
  return {
    dev: lookedDev(),
    ino: u64(0x20),
    mode: view.getUint16(0x1c, true),
    uid: view.getUint32(0x14, true),
    gid: view.getUint32(0x18, true),
    nlink: view.getUint32(0x10, true),
    size: u64(0x28),
    ctimeMs: lookedCtimeMs(),
  };
}

/**
 * Whether `path` (made by cPath) is still the directory or file of device `dev` and inode `ino`, unchanged since
 * `ctimeMs`: one look, with nothing made of it. False when it cannot be looked at. Refuses nothing.
 */
export function stillAt(path: Uint8Array, dev: number, ino: number, ctimeMs: number): boolean {
  const call = loadStatx();
  if (call === null) {
    const st = fromNode(path, false);
    return st !== undefined && st.dev === dev && st.ino === ino && st.ctimeMs === ctimeMs;
  }
  if (call(AT_FDCWD, path, 0, STATX_BASIC_STATS, buffer) !== 0) return false;
  return u64(0x20) === ino && lookedCtimeMs() === ctimeMs && lookedDev() === dev;
}

/** An unsigned 64-bit field of the last look, read as two halves: no BigInt is made. */
function u64(at: number): number {
  return view.getUint32(at, true) + view.getUint32(at + 4, true) * 0x100000000;
}

/** The last look's ctime in ms, as node:fs gives it: its seconds (signed, 64 bits) and nanoseconds. */
function lookedCtimeMs(): number {
  const seconds = view.getUint32(0x60, true) + view.getInt32(0x64, true) * 0x100000000;
  return seconds * 1000 + view.getUint32(0x68, true) / 1e6;
}

/** The last look's device, as node:fs spells it. */
function lookedDev(): number {
  return makedev(view.getUint32(0x88, true), view.getUint32(0x8c, true));
}

/** The same numbers of a Stats node:fs gave. */
export function lookOf(st: Stats): Look {
  return {
    dev: st.dev,
    ino: st.ino,
    mode: st.mode,
    uid: st.uid,
    gid: st.gid,
    nlink: st.nlink,
    size: st.size,
    ctimeMs: st.ctimeMs,
  };
}

/** Whether two looks saw the same inode, with the same type, mode and owner, unchanged since (its ctime). */
export function sameLook(a: Look, b: Look): boolean {
  return (
    a.dev === b.dev &&
    a.ino === b.ino &&
    a.mode === b.mode &&
    a.uid === b.uid &&
    a.gid === b.gid &&
    a.ctimeMs === b.ctimeMs
  );
}

/** glibc's makedev, as node:fs spells a device number. */
function makedev(major: number, minor: number): number {
  return (
    (minor & 0xff) + (major & 0xfff) * 0x100 + (minor >>> 8) * 0x100000 + Math.floor(major / 0x1000) * 0x100000000000
  );
}

function fromNode(path: Uint8Array, noFollow: boolean): Look | undefined {
  const name = Buffer.from(path.buffer, path.byteOffset, path.byteLength - 1).toString("utf8");
  try {
    const st = noFollow ? lstatSync(name, { throwIfNoEntry: false }) : statSync(name, { throwIfNoEntry: false });
    return st === undefined ? undefined : lookOf(st);
  } catch {
    return undefined;
  }
}
