/**
 * Which file a name holds, asked once per record line and once per agent
 * call (gate.db's, the record's, the checkpoint's): a file removed or
 * replaced under a running server must be noticed at the very next use, so
 * the ask cannot be skipped or spaced out, only made cheap. Node's statSync
 * builds a whole Stats object (times as Dates included) for the two numbers
 * wanted, and that was 7.5% of a free read's server time; statx(2) through
 * libc fills a buffer this module keeps, and asks the kernel for the type,
 * inode and size alone. Where libc or statx cannot be reached (not Linux with
 * glibc), Node's lstatSync and fstatSync answer the same questions. One
 * process uses one of the two throughout, so ids it compares always come from
 * the same one. Measured in one run against Node's stat for the same asks,
 * statx saved 8 to 12 µs of server CPU a call, and loading bun:ffi with its
 * two symbols left a compiled server's idle memory within 0.2 MiB of before.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";
import { fstatSync, lstatSync, type Stats, statfsSync } from "node:fs";

/** What a name or a descriptor holds: enough to tell one file from another, and how long it is. */
export interface FileId {
  /** the device, as one number (statx's major and minor, or Node's dev) */
  dev: number;
  ino: number;
  size: number;
  /** a regular file, not a link, a FIFO, a device or a dir */
  isFile: boolean;
}

type Statx = (dirfd: number, path: number, flags: number, mask: number, buf: number) => number;
type Fstatfs = (fd: number, buf: number) => number;

const AT_FDCWD = -100;
const AT_SYMLINK_NOFOLLOW = 0x100;
const AT_EMPTY_PATH = 0x1000;
/** STATX_TYPE | STATX_INO | STATX_SIZE: nothing else is read */
const MASK = 0x0001 | 0x0100 | 0x0200;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

let statx: Statx | null | undefined;
let fstatfs: Fstatfs | null = null;

function loadStatx(): Statx | null {
  if (statx !== undefined) return statx;
  statx = null;
  if (process.platform !== "linux") return statx;
  try {
    const { symbols } = dlopen("libc.so.6", {
      statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      fstatfs: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    });
    statx = symbols.statx as unknown as Statx;
    fstatfs = symbols.fstatfs as unknown as Fstatfs;
  } catch {
    // a libc without statx (or none by that name): Node's stat answers
  }
  return statx;
}

/** struct statx: 256 bytes, the same on every Linux architecture; one buffer for every ask, read at once. */
const buf = new Uint8Array(256);
const view = new DataView(buf.buffer);
let bufPtr = 0;
const EMPTY = new Uint8Array(1);
let emptyPtr = 0;

function fromBuffer(): FileId {
  // stx_mode u16 @28, stx_ino u64 @32, stx_size u64 @40, stx_dev_major u32 @136, stx_dev_minor u32 @140
  return {
    dev: view.getUint32(136, true) * 0x100000000 + view.getUint32(140, true),
    ino: view.getUint32(36, true) * 0x100000000 + view.getUint32(32, true),
    size: view.getUint32(44, true) * 0x100000000 + view.getUint32(40, true),
    isFile: (view.getUint16(28, true) & S_IFMT) === S_IFREG,
  };
}

/**
 * A name to ask about again and again: its bytes as the kernel takes them are
 * made once. `id()` says what the name holds now, never following a link at
 * its end; undefined when it holds nothing or cannot be asked (a dir on the
 * way gone or unreadable). Refuses nothing.
 */
export class NameProbe {
  private readonly cpath: Uint8Array;
  private cptr = 0;

  constructor(readonly path: string) {
    this.cpath = new TextEncoder().encode(`${path}\0`);
  }

  id(): FileId | undefined {
    const call = loadStatx();
    if (call === null) return nodeId(() => lstatSync(this.path, { throwIfNoEntry: false }));
    if (this.cptr === 0) this.cptr = ptr(this.cpath);
    if (bufPtr === 0) bufPtr = ptr(buf);
    if (call(AT_FDCWD, this.cptr, AT_SYMLINK_NOFOLLOW, MASK, bufPtr) !== 0) return undefined;
    return fromBuffer();
  }
}

/** What an open descriptor holds, as NameProbe says what a name holds; undefined when it cannot be asked. */
export function fdId(fd: number): FileId | undefined {
  const call = loadStatx();
  if (call === null) return nodeId(() => fstatSync(fd));
  if (bufPtr === 0) bufPtr = ptr(buf);
  if (emptyPtr === 0) emptyPtr = ptr(EMPTY);
  if (call(fd, emptyPtr, AT_EMPTY_PATH, MASK, bufPtr) !== 0) return undefined;
  return fromBuffer();
}

/** struct statfs on 64-bit Linux: f_blocks u64 @16, f_bfree @24, f_bavail @32 (the first 120 bytes; room for more). */
const fsBuf = new Uint8Array(128);
const fsView = new DataView(fsBuf.buffer);
let fsPtr = 0;
/** root may write into the blocks a file system keeps back; anyone else stops at what is available to all */
const BLOCKS_AT = process.geteuid?.() === 0 ? 24 : 32;

/**
 * Whether the file system `fd` is on has a block left for this process to
 * write into (the way a full disk is told before a write that would still fit
 * in the file's last block). True when it cannot be asked, or when the file
 * system counts no blocks at all (ramfs, a tmpfs without a size): a write
 * failing on a full disk is still caught by the write. `path` is the file's
 * name, for where libc cannot be reached.
 */
export function hasRoom(fd: number, path: string): boolean {
  loadStatx();
  if (fstatfs === null) {
    try {
      const s = statfsSync(path);
      return s.blocks === 0 || (BLOCKS_AT === 24 ? s.bfree : s.bavail) > 0;
    } catch {
      return true;
    }
  }
  if (fsPtr === 0) fsPtr = ptr(fsBuf);
  if (fstatfs(fd, fsPtr) !== 0) return true;
  if (fsView.getUint32(16, true) === 0 && fsView.getUint32(20, true) === 0) return true;
  return fsView.getUint32(BLOCKS_AT, true) > 0 || fsView.getUint32(BLOCKS_AT + 4, true) > 0;
}

/** Whether two ids name the same file (device and inode). */
export function sameFile(a: FileId, b: FileId): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

function nodeId(stat: () => Stats | undefined): FileId | undefined {
  try {
    const s = stat();
    return s && { dev: s.dev, ino: s.ino, size: s.size, isFile: s.isFile() };
  } catch {
    return undefined;
  }
}
