/**
 * The handles a capability is given (core/access.ts), on what the walk
 * (open.ts) opened. Every name is looked up inside an opened directory
 * through `/proc/self/fd/<fd>/<name>` with O_NOFOLLOW, so nothing here opens a
 * path string from a root again, follows a link, or leaves the directory it
 * was handed. What the gate withholds is asked of rules.ts and left out or
 * refused here, so a capability never asks. A walk goes through walk.ts, a
 * removal through removal.ts.
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
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import type { DirEntry, DirHandle, ReadHandle, WalkEntry, WalkSummary, WriteHandle } from "../../core/access.ts";
import type { Pacer } from "../../core/pacer.ts";
import { atomicWrite } from "./atomicWrite.ts";
import { undoIfGitDir } from "./confirm.ts";
import { OpenedFd, readRange } from "./openedFile.ts";
import { inFd, O_PATH } from "./procFd.ts";
import { removeTree } from "./removal.ts";
import { changed, type Keeper, withheld } from "./rules.ts";
import { walkTree } from "./walk.ts";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = constants;

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

  walk(
    maxDepth: number,
    pacer: Pacer,
    visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
  ): Promise<WalkSummary> {
    return walkTree(this.fd, this.keeper, maxDepth, pacer, visit);
  }

  descriptor(): number {
    return this.fd;
  }

  close(): void {
    closeSync(this.fd);
  }
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
