/**
 * gate.db's shared-memory file (`gate.db-shm`), read and locked the way
 * SQLite's WAL format lays it out, for the two asks made on every call:
 *
 * - whether anything was committed to gate.db since a given moment: the
 *   wal-index header (its first 96 bytes, two copies of 48) changes at every
 *   commit by any process, whatever it wrote (its change counter, frame count
 *   and checksums move; a WAL started afresh has new salts). One pread of it
 *   answers what `PRAGMA data_version` answered with a statement step and a
 *   read lock (two fcntl). Two copies that differ (a writer in the middle),
 *   a header not yet made, or a file that cannot be read say "unknown", and
 *   the caller asks SQLite.
 * - the write lock that orders every writer of gate.db and of the record:
 *   byte 120 (WAL_WRITE_LOCK) of this file, which every SQLite connection,
 *   of any rta version, takes before it writes. Taken here as an open file
 *   description lock (F_OFD_SETLK), which conflicts with SQLite's own POSIX
 *   locks on the byte in any process, this one included, and with another
 *   server's OFD lock: one fcntl to take it, one to let it go, where an empty
 *   `BEGIN IMMEDIATE`/`COMMIT` took four and two statement steps. While it is
 *   held, this process must not write through SQLite (it would wait on itself).
 *
 * The file is the one SQLite keeps beside gate.db while a connection is open
 * (this process's own keeps it there). Where libc, the file or OFD locks
 * cannot be had, `open` says so and the callers keep SQLite's own ways.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";

type FcntlFn = (fd: number, cmd: number, lock: Uint8Array) => number;
/** The first bytes of `fd` mapped shared and read-only, viewed as a Buffer; undefined when they cannot be. */
type MapFn = (fd: number, length: number) => { view: Buffer; unmap: () => void } | undefined;

let libc: { fcntl: FcntlFn; map: MapFn } | null | undefined;

function load(): typeof libc {
  if (libc !== undefined) return libc;
  libc = null;
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) return libc;
  try {
    const { dlopen, FFIType, toArrayBuffer } = require("bun:ffi") as typeof import("bun:ffi");
    const { symbols } = dlopen("libc.so.6", {
      fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      mmap: {
        args: [FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32, FFIType.i32, FFIType.i64],
        returns: FFIType.ptr,
      },
      munmap: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.i32 },
    });
    const PROT_READ = 1;
    const MAP_SHARED = 1;
    libc = {
      fcntl: (fd, cmd, lock) => symbols.fcntl(fd, cmd, lock),
      map: (fd, length) => {
        const at = symbols.mmap(null, length, PROT_READ, MAP_SHARED, fd, 0);
        // MAP_FAILED is (void *) -1
        if (!at || at > Number.MAX_SAFE_INTEGER) return undefined;
        return { view: Buffer.from(toArrayBuffer(at, 0, length)), unmap: () => symbols.munmap(at, length) };
      },
    };
  } catch {
    libc = null;
  }
  return libc;
}

const F_OFD_GETLK = 36;
const F_OFD_SETLK = 37;
const F_WRLCK = 1;
const F_UNLCK = 2;
/** SQLite's WAL_WRITE_LOCK: the byte of the -shm file a connection locks to write (walformat, "locks"). */
export const WAL_WRITE_LOCK_BYTE = 120;
/** Two copies of the 48-byte WalIndexHdr. */
const HEADER_BYTES = 96;
/** WalIndexHdr.isInit: 1 once the header is made. */
const IS_INIT = 12;

/** The -shm file open for reading its header and locking its write byte. */
export class ShmFile {
  private readonly header = Buffer.alloc(HEADER_BYTES);
  /** struct flock (64-bit Linux): l_type i16 @0, l_whence i16 @2, l_start i64 @8, l_len i64 @16, l_pid i32 @24 */
  private readonly flock = new Uint8Array(32);
  private readonly flockView = new DataView(this.flock.buffer);
  /** OFD locks can be taken here */
  canLock = false;
  /** the header's bytes as mapped (read with no syscall), where they could be */
  private mapped: { view: Buffer; unmap: () => void } | undefined;

  private constructor(
    private readonly fd: number,
    private readonly fcntl: FcntlFn,
  ) {}

  /** The struct flock for the write byte, of `type` (F_GETLK writes over it, so it is filled at every ask). */
  private fill(type: number): void {
    const v = this.flockView;
    v.setInt16(0, type, true);
    v.setInt16(2, 0, true); // SEEK_SET
    v.setUint32(8, WAL_WRITE_LOCK_BYTE, true);
    v.setUint32(12, 0, true);
    v.setUint32(16, 1, true);
    v.setUint32(20, 0, true);
    v.setInt32(24, 0, true); // l_pid: 0, as OFD locks require
  }

  /** gate.db's -shm file open for both asks; undefined when it, libc or OFD locks cannot be had. Refuses nothing. */
  static open(dbFile: string): ShmFile | undefined {
    const c = load();
    if (!c) return undefined;
    let fd: number;
    try {
      // Written to only by SQLite; opened for writing because a write lock needs it. Never through a link.
      fd = openSync(`${dbFile}-shm`, constants.O_RDWR | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return undefined;
    }
    const shm = new ShmFile(fd, c.fcntl);
    // A kernel without OFD locks (before 3.15) refuses the command: SQLite's lock is kept, and only the header read.
    shm.canLock = shm.lockFree() !== undefined;
    // Mapped as SQLite maps it, its header is read with no syscall. Only a file that already holds the header:
    // a page wholly past the file's end cannot be read, and SQLite never makes it shorter than 3 bytes while a
    // connection (this process's) is open.
    try {
      if (fstatSync(fd).size >= HEADER_BYTES) shm.mapped = c.map(fd, HEADER_BYTES);
    } catch {
      shm.mapped = undefined;
    }
    return shm;
  }

  /**
   * Lets the file go. Only once gate.db's connection is closed: closing any
   * descriptor of a file drops every POSIX lock this process holds on it,
   * SQLite's own on this file included, and another process would then take
   * the shared memory for unused and make it afresh under a live connection.
   */
  close(): void {
    const mapped = this.mapped;
    this.mapped = undefined;
    mapped?.unmap();
    closeSync(this.fd);
  }

  /** Whether the write byte is free now (asked without taking it); undefined when OFD locks are refused. */
  private lockFree(): boolean | undefined {
    this.fill(F_WRLCK);
    if (this.fcntl(this.fd, F_OFD_GETLK, this.flock) !== 0) return undefined;
    return this.flockView.getInt16(0, true) === F_UNLCK;
  }

  /**
   * The wal-index header as the file holds it now (a buffer kept, good until
   * the next read); undefined when it holds no whole one (not made yet, its
   * two copies unlike while a writer is in the middle) or cannot be read.
   */
  readHeader(): Buffer | undefined {
    let got = HEADER_BYTES;
    // Copied out first: a writer may change the mapped bytes while they are checked.
    if (this.mapped) this.mapped.view.copy(this.header);
    else
      try {
        got = readSync(this.fd, this.header, 0, HEADER_BYTES, 0);
      } catch {
        return undefined;
      }
    const h = this.header;
    if (got !== HEADER_BYTES || h[IS_INIT] !== 1 || h.compare(h, 48, 96, 0, 48) !== 0) return undefined;
    return h;
  }

  /** Takes the write byte without waiting: false when another holds it (or SQLite's lock here). */
  tryLock(): boolean {
    this.fill(F_WRLCK);
    return this.fcntl(this.fd, F_OFD_SETLK, this.flock) === 0;
  }

  /** Lets the write byte go. */
  unlock(): void {
    this.fill(F_UNLCK);
    this.fcntl(this.fd, F_OFD_SETLK, this.flock);
  }
}

/**
 * A moment of gate.db, as its wal-index header was then: `same()` says
 * whether nothing has been committed since `mark()`. Starts unmarked.
 */
export class CommitMark {
  private readonly seen = Buffer.alloc(HEADER_BYTES);
  private marked = false;

  /** Whether `header` (from readHeader) is the one marked: no commit since. False when there is none. */
  same(header: Buffer | undefined): boolean {
    return this.marked && header !== undefined && this.seen.equals(header);
  }

  /** Marks `header` (read before what it marks was read); undefined forgets the mark. */
  mark(header: Buffer | undefined): void {
    if (header === undefined) this.marked = false;
    else {
      header.copy(this.seen);
      this.marked = true;
    }
  }
}
