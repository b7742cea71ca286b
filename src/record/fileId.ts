/**
 * Which file a name holds, asked once per record line and once per agent
 * call (gate.db's, the record's, the checkpoint's): a file removed or
 * replaced under a running server must be noticed at the very next use, so
 * the ask cannot be skipped or spaced out, only made cheap. Node's statSync
 * builds a whole Stats object (times as Dates included) for the two numbers
 * wanted, and that was 7.5% of a free read's server time; statx(2) through
 * libc (core/statx.ts) fills a buffer kept for the process, and asks the
 * kernel for the type, inode and size alone. Where libc or statx cannot be reached (not Linux with
 * glibc), Node's lstatSync and fstatSync answer the same questions. One
 * process uses one of the two throughout, so ids it compares always come from
 * the same one. Measured in one run against Node's stat for the same asks,
 * statx saved 8 to 12 µs of server CPU a call, and loading bun:ffi with its
 * two symbols left a compiled server's idle memory within 0.2 MiB of before.
 */
import { fstatSync, lstatSync, type Stats, statfsSync } from "node:fs";
import {
  AT_SYMLINK_NOFOLLOW,
  cPath,
  fstatfsOf,
  hasStatx,
  STATX_TYPE_INO_SIZE,
  statxAt,
  stx,
  u64,
} from "../core/statx.ts";

/** What a name or a descriptor holds: enough to tell one file from another, and how long it is. */
export interface FileId {
  /** the device, as node:fs spells it */
  dev: number;
  ino: number;
  size: number;
  /** a regular file, not a link, a FIFO, a device or a dir */
  isFile: boolean;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

function fromView(v: DataView): FileId {
  return { dev: stx.dev(v), ino: stx.ino(v), size: stx.size(v), isFile: (stx.mode(v) & S_IFMT) === S_IFREG };
}

/**
 * A name to ask about again and again: its bytes as the kernel takes them are
 * made once. `id()` says what the name holds now, never following a link at
 * its end; undefined when it holds nothing or cannot be asked (a dir on the
 * way gone or unreadable). Refuses nothing.
 */
export class NameProbe {
  private readonly cpath: Uint8Array;

  constructor(readonly path: string) {
    this.cpath = cPath(path);
  }

  id(): FileId | undefined {
    if (!hasStatx()) return nodeId(() => lstatSync(this.path, { throwIfNoEntry: false }));
    const v = statxAt(this.cpath, AT_SYMLINK_NOFOLLOW, STATX_TYPE_INO_SIZE);
    return v && fromView(v);
  }
}

/** What an open descriptor holds, as NameProbe says what a name holds; undefined when it cannot be asked. */
export function fdId(fd: number): FileId | undefined {
  if (!hasStatx()) return nodeId(() => fstatSync(fd));
  const v = statxAt(null, 0, STATX_TYPE_INO_SIZE, fd);
  return v && fromView(v);
}

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
  const v = fstatfsOf(fd);
  if (v === null) {
    try {
      const s = statfsSync(path);
      return s.blocks === 0 || (BLOCKS_AT === 24 ? s.bfree : s.bavail) > 0;
    } catch {
      return true;
    }
  }
  // struct statfs on 64-bit Linux: f_blocks u64 @16, f_bfree @24, f_bavail @32
  if (v === undefined) return true;
  return u64(v, 16) === 0 || u64(v, BLOCKS_AT) > 0;
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
