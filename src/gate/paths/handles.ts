/**
 * The handles a capability is given (core/access.ts), on what the walk
 * (open.ts) opened. Every name is looked up inside an opened directory
 * through `/proc/self/fd/<fd>/<name>` with O_NOFOLLOW, so nothing here opens a
 * path string from a root again, follows a link, or leaves the directory it
 * was handed. What the gate withholds is asked of rules.ts and left out or
 * refused here, so a capability never asks. A removal goes through
 * removal.ts.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import type { DirEntry, DirHandle, ExistingFile, ReadHandle, WalkEntry, WriteHandle } from "../../core/access.ts";
import type { Pacer } from "../../core/pacer.ts";
import { atomicWrite } from "./atomicWrite.ts";
import { undoIfGitDir } from "./confirm.ts";
import { inFd, O_PATH } from "./procFd.ts";
import { removeTree } from "./removal.ts";
import { changed, type Keeper, walkedFileWithheld, withheld } from "./rules.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/** Reads up to `length` bytes of an opened file from `offset`; fewer at its end. Refuses nothing. */
function readRange(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** An opened file handed to a capability to read, and closed by whoever opened it. */
class OpenedFd implements ExistingFile {
  constructor(
    readonly fd: number,
    readonly size: number,
  ) {}

  read(offset: number, length: number): Buffer {
    return readRange(this.fd, offset, length);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** A path opened for reading; when it is a directory, the same value lists and walks it. */
export class ReadPath implements ReadHandle, DirHandle {
  readonly intent = "read";
  /** the directory's real path, once asked */
  private real: string | undefined;

  constructor(
    /** as the caller sent it (a person's is set back to what they typed) */
    public sent: string,
    readonly rel: string,
    readonly fd: number,
    readonly stat: Stats,
    readonly root: string,
    private readonly keeper: Keeper,
  ) {}

  read(offset: number, length: number): Buffer {
    return readRange(this.fd, offset, length);
  }

  dir(): DirHandle | undefined {
    return this.stat.isDirectory() ? this : undefined;
  }

  names(): string[] {
    return readdirSync(inFd(this.fd)).sort();
  }

  entry(name: string): DirEntry | undefined {
    if (name === "" || name === "." || name === ".." || name.includes("/")) return; // a path, not a name in it
    let stat: Stats;
    try {
      stat = lstatSync(inFd(this.fd, name));
    } catch {
      return undefined; // gone while we looked
    }
    if (stat.isDirectory()) {
      this.real ??= readlinkSync(inFd(this.fd));
      // rta's own dirs are passed by, as a walk passes them
      if (withheld(this.keeper.rules, this.keeper.own(), `${this.real === "/" ? "" : this.real}/${name}`)) return;
    }
    return { name, stat };
  }

  async walk(
    maxDepth: number,
    pacer: Pacer,
    visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
  ): Promise<void> {
    const keeper = this.keeper;
    const go = async (fd: number, prefix: string, depth: number): Promise<boolean> => {
      for (const name of readdirSync(inFd(fd)).sort()) {
        if (pacer.due()) await pacer.pause();
        let stat: Stats;
        try {
          stat = lstatSync(inFd(fd, name));
        } catch {
          continue; // gone while we looked
        }
        const rel = prefix ? `${prefix}/${name}` : name;
        const entry = new Walked(rel, name, stat, depth, fd, keeper);
        if (stat.isDirectory()) {
          const child = openChild(fd, name, true, keeper);
          if (child === undefined) continue; // withheld, or not ours to list
          try {
            if ((await entry.visitedBy(visit)) === false) return false;
            if (depth < maxDepth && !(await go(child, rel, depth + 1))) return false;
          } finally {
            closeSync(child);
          }
        } else if ((await entry.visitedBy(visit)) === false) return false;
      }
      return true;
    };
    await pacer.pause(); // a call cancelled as soon as it was sent stops here
    await go(this.fd, "", 1);
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** An entry a walk came to; its directory stays open while the visitor runs, and it opens nothing after. */
class Walked implements WalkEntry {
  /** false once the visitor is done with it: its directory may be closed then, and the number reused */
  private live = true;

  constructor(
    readonly rel: string,
    readonly name: string,
    readonly stat: Stats,
    readonly depth: number,
    private readonly dirFd: number,
    private readonly keeper: Keeper,
  ) {}

  /** Hands it to the visitor, for as long as that runs. */
  async visitedBy(visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>) {
    try {
      return await visit(this);
    } finally {
      this.live = false;
    }
  }

  openFile(): OpenedFd | undefined {
    if (!this.live) return undefined;
    const fd = openChild(this.dirFd, this.name, false, this.keeper);
    return fd === undefined ? undefined : new OpenedFd(fd, this.stat.size);
  }
}

/**
 * Opens a child of an opened directory for a walk: a directory without
 * following a link, and only where the gate's rules let it be read. Returns
 * undefined for what the walk should pass by.
 */
function openChild(dirFd: number, name: string, dir: boolean, keeper: Keeper): number | undefined {
  let fd: number;
  try {
    fd = openSync(inFd(dirFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
  } catch {
    return undefined;
  }
  try {
    const real = readlinkSync(inFd(fd));
    const st = fstatSync(fd);
    const kept = dir
      ? withheld(keeper.rules, keeper.own(), real)
      : walkedFileWithheld(keeper.rules, keeper.own(), dirFd, real, st);
    if (kept) {
      closeSync(fd);
      return undefined;
    }
  } catch {
    closeSync(fd);
    return undefined;
  }
  return fd;
}

/** A path to write: its parent directory opened (O_PATH), and the name in it. */
export class WritePath implements WriteHandle {
  readonly intent = "write";

  constructor(
    public sent: string,
    readonly rel: string,
    readonly parentFd: number,
    readonly name: string,
    readonly existing: Stats | null,
    readonly root: string,
    private readonly keeper: Keeper,
  ) {}

  /** The name, looked up in the opened parent. */
  private get here(): string {
    return inFd(this.parentFd, this.name);
  }

  replace(data: Uint8Array, mode: number): void {
    this.asSeen(["EISDIR", "ENOENT"], () => atomicWrite(this.parentFd, this.name, data, mode));
    this.confirmMade(() => unlinkSync(this.here));
  }

  openExisting(): OpenedFd {
    // Looked up by name again, as a name only: it must still be the file the gate checked before it is opened
    // for reading, since opening what was swapped in has effects of its own (a FIFO's writer let go, a device's).
    const at = this.asSeen(["ENOENT"], () => openSync(this.here, O_PATH | O_NOFOLLOW));
    try {
      const st = fstatSync(at);
      if (!st.isFile() || st.dev !== this.existing?.dev || st.ino !== this.existing?.ino) throw changed(this.sent);
      return new OpenedFd(openSync(inFd(at), O_RDONLY | O_NONBLOCK), st.size);
    } finally {
      closeSync(at);
    }
  }

  mkdir(): void {
    this.asSeen(["EEXIST", "ENOENT"], () => mkdirSync(this.here, 0o755));
    this.confirmMade(() => rmdirSync(this.here));
  }

  remove(): void {
    this.asSeen(["EISDIR", "ENOTDIR", "ENOENT"], () => {
      if (this.existing?.isDirectory()) rmdirSync(this.here);
      else unlinkSync(this.here);
    });
  }

  removeTree(pacer: Pacer): Promise<number> {
    return removeTree(this.parentFd, this.name, this.sent, this.keeper, pacer);
  }

  moveTo(to: WriteHandle): void {
    if (!(to instanceof WritePath)) throw new Error("a move's destination is a handle the gate opened");
    renameSync(this.here, to.here);
    to.confirmMade(() => renameSync(to.here, this.here));
  }

  /** Runs `op` on the name; one of `codes` from the OS says it is no longer what the gate saw, and is refused so. */
  private asSeen<T>(codes: readonly string[], op: () => T): T {
    try {
      return op();
    } catch (err) {
      if (codes.includes((err as NodeJS.ErrnoException).code ?? "")) throw changed(this.sent);
      throw err;
    }
  }

  /**
   * A write takes back what it put at the name and refuses when that made its directory a git dir. Asked
   * whether or not the name was there when the gate looked: another server may have taken that mark away
   * and made the one missing since, so the one put back is the last.
   */
  private confirmMade(undo: () => void): void {
    if (this.keeper.rules.git) undoIfGitDir(this.parentFd, this.name, this.sent, undo);
  }

  close(): void {
    closeSync(this.parentFd);
  }
}

/** What an open hands back: a handle of either intent, closed by whoever asked for it. */
export type OpenedPath = ReadPath | WritePath;
