/**
 * The path gate: every path an agent's call would use is opened from a root, one component at a time, on what is
 * opened rather than on a string.
 *
 * Each step looks at and opens the next component under the directory already opened (statx and openat, or
 * `/proc/self/fd/<dirfd>/<name>`), with O_NOFOLLOW: a path swapped for a symlink meanwhile is not followed. A symlink
 * is read and followed by the gate itself, only while it stays inside the root; `..` pops the directory actually
 * entered and may not climb above the root. What was finally opened is confirmed by its descriptor: its statx and
 * its real path (the kernel's, or in a kept root whose own holds, the root's and its name: rootWay.ts). The check
 * and the open are one operation, so there is nothing to race.
 *
 * rta's own places are worked out when a path is opened (ownPlaces.ts): what lies inside them is not opened, and no
 * write may land on the way to one, so a place cannot be moved, planted or relinked before it exists. A git dir is
 * known by what it holds, whatever its name (gitDirs.ts). What each step may open, and where a write may land, is
 * asked of confirm.ts; the rules themselves are rules.ts. The walk starts at a root pathGate.ts opened.
 *
 * Refusals, each naming the path as the agent sent it and nothing of rta's own layout: core.path.* (outside,
 * symlink, hardlink, withheld, unreadable, invalid); fs.notfound when there is nothing there.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  rmdirSync,
  type Stats,
} from "node:fs";
import { isAbsolute } from "node:path";
import { confirmOpened, confirmParent, confirmPlace, confirmTarget, undoIfGitDir, type Walk } from "./confirm.ts";
import { GIT_DIR_NAME, isGitDir } from "./gitDirs.ts";
import { type OpenedPath, ReadPath, WritePath } from "./handles.ts";
import { type EntryStat, entryAt, openedStat, openIn } from "./look.ts";
import { isUnder, MAX_LINK_HOPS } from "./ownPlaces.ts";
import { inFd, O_PATH } from "./procFd.ts";
import type { OpenedRoot } from "./roots.ts";
import { realEntry } from "./rootWay.ts";
import {
  changed,
  gitDirWithheld,
  gitSecretRefused,
  gitSecretWithheld,
  gitWithheld,
  hardlinkRefused,
  hardlinkWithheld,
  type Keeper,
  lookupRefused,
  notFound,
  OUTSIDE_HINT,
  pathError,
  ROOT_HINT,
  unreadable,
} from "./rules.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;

/**
 * Walks `parts` from an opened root (confirmed as `at`) to a handle that asks `keeper` what it withholds; refuses
 * with the codes above. Every descriptor but the handle's is closed, the root's unless kept for later calls.
 */
export function walk(at: Walk, root: OpenedRoot, keeper: Keeper, parts: string[], makeParents: boolean): OpenedPath {
  return new Walker(at, root, keeper, parts, makeParents).run();
}

/**
 * One walk from a root's descriptor, one component at a time; every
 * descriptor it opened is closed but the one it hands back. Each step returns
 * the handle when the walk ends there, and nothing to go on.
 */
class Walker {
  /** the directories entered, the root first */
  private readonly stack: number[];
  /** their names below the root */
  private readonly rel: string[] = [];
  private readonly queue: string[];
  /** links followed (and entries looked at again), against MAX_LINK_HOPS */
  private hops = 0;

  constructor(
    private readonly at: Walk,
    /** a kept root's descriptor (roots.ts) is never closed, nor handed to a handle */
    private readonly root: OpenedRoot,
    private readonly keeper: Keeper,
    parts: string[],
    private readonly makeParents: boolean,
  ) {
    this.stack = [root.fd];
    this.queue = parts.filter((p) => p !== "" && p !== ".");
  }

  run(): OpenedPath {
    try {
      if (this.makeParents) this.refuseClimbing();
      while (this.queue.length > 0) {
        const name = this.queue.shift() as string;
        const got = name === ".." ? this.up() : this.step(name, this.queue.length === 0);
        if (got) return got;
      }
      return this.atRoot();
    } finally {
      this.leave(this.root.kept === true ? 1 : 0);
    }
  }

  private get top(): number {
    return this.stack[this.stack.length - 1] as number;
  }
  private leave(keep: number): void {
    while (this.stack.length > keep) closeSync(this.stack.pop() as number);
  }

  /** With parents to make, a path that climbs above its root as written is refused before any is made. */
  private refuseClimbing(): void {
    let depth = 0;
    for (const p of this.queue) {
      depth += p === ".." ? -1 : 1;
      if (depth < 0) throw pathError("outside", this.at.sent, "climbs above its root", OUTSIDE_HINT);
    }
  }

  /** `..`: back to the directory entered before, never above the root. */
  private up(): undefined {
    if (this.stack.length === 1) {
      throw this.hops > 0
        ? pathError("symlink", this.at.sent, "passes through a link that leaves its root", OUTSIDE_HINT)
        : pathError("outside", this.at.sent, "climbs above its root", OUTSIDE_HINT);
    }
    closeSync(this.stack.pop() as number);
    this.rel.pop();
    return undefined;
  }

  /** One name: looked at (a read's, by type and identity only), then followed, entered, or finished on if the last. */
  private step(name: string, last: boolean): OpenedPath | undefined {
    const { sent, intent, rules } = this.at;
    if (rules.git && intent === "write" && name === GIT_DIR_NAME) throw gitWithheld(sent);
    let st: EntryStat;
    try {
      st = intent === "read" ? entryAt(this.top, name) : lstatSync(inFd(this.top, name));
    } catch (err) {
      return this.missing(name, last, (err as NodeJS.ErrnoException).code, err);
    }
    if (st.isSymbolicLink()) return this.throughLink(name, last, st);
    if (last) return this.finish(name, st);
    if (!st.isDirectory()) throw notFound(sent);
    return this.enter(name);
  }

  /** Nothing there (or not looked at): a write's new name, a parent to make, or a refusal. */
  private missing(name: string, last: boolean, e: string | undefined, err: unknown): OpenedPath | undefined {
    const { sent, intent, rules } = this.at;
    if (e === "ENOENT" && last && intent === "write") {
      confirmTarget(this.at, this.top, name, false);
      return this.writeHandle(name, null);
    }
    if (e === "ENOENT" && this.makeParents && intent === "write") {
      // Made inside the directory already opened, then walked into like any other.
      const top = this.top;
      confirmParent(this.at, top, name, this.queue);
      try {
        mkdirSync(inFd(top, name), 0o755);
        if (rules.git) undoIfGitDir(top, name, sent, () => rmdirSync(inFd(top, name)));
      } catch (made) {
        // made by someone else since the lstat: looked at again like anything else, within the hop limit
        if ((made as NodeJS.ErrnoException).code !== "EEXIST" || ++this.hops > MAX_LINK_HOPS) throw made;
      }
      this.queue.unshift(name);
      return undefined;
    }
    // A missing parent on the way to one of rta's places is said as the place, not as an absence.
    if (e === "ENOENT" && intent === "write") confirmPlace(this.at, this.top, name);
    throw lookupRefused(e, sent) ?? err;
  }

  /** A link: a write's last name replaces it; otherwise it is read and followed while it stays in the root. */
  private throughLink(name: string, last: boolean, st: EntryStat): OpenedPath | undefined {
    const { sent, intent, root } = this.at;
    if (++this.hops > MAX_LINK_HOPS)
      throw pathError("symlink", sent, "passes through a loop of links", "send the path the links point to");
    if (last && intent === "write") {
      // Writing at a link's name replaces the link (rename does not follow it); it never writes where it points.
      confirmTarget(this.at, this.top, name, false);
      return this.writeHandle(name, st as Stats); // a write's entry is lstat's (step)
    }
    let target: string;
    try {
      target = readlinkSync(inFd(this.top, name));
    } catch (err) {
      const e = (err as NodeJS.ErrnoException).code;
      if (e === "ENOENT") throw notFound(sent);
      // No longer a link since the lstat: look at it again, within the hop limit.
      if (e === "EINVAL") {
        this.queue.unshift(name);
        return undefined;
      }
      throw err;
    }
    if (!isAbsolute(target)) {
      this.queue.unshift(...target.split("/").filter((p) => p !== "" && p !== "."));
      return undefined;
    }
    const clean = target.replace(/\/+/g, "/");
    const under = () => [this.at.rootReal, root].find((b) => isUnder(clean, b));
    const base = under() ?? (this.at.rootMoved?.() ? under() : undefined); // a kept root's real path, read again
    if (base === undefined)
      throw pathError("symlink", sent, "passes through a link that leaves its root", OUTSIDE_HINT);
    this.leave(1);
    this.rel.length = 0;
    this.queue.unshift(
      ...clean
        .slice(base === "/" ? 1 : base.length)
        .split("/")
        .filter((p) => p !== "" && p !== "."),
    );
    return undefined;
  }

  /** A directory on the way: opened as a name only, confirmed, and entered. */
  private enter(name: string): undefined {
    const { sent, intent, rules } = this.at;
    let fd: number;
    try {
      fd = openIn(this.top, name, O_PATH | O_DIRECTORY | O_NOFOLLOW);
    } catch (err) {
      const e = (err as NodeJS.ErrnoException).code;
      // Swapped for a link or a file since the lstat: look again, within the hop limit.
      if ((e === "ELOOP" || e === "ENOTDIR") && ++this.hops <= MAX_LINK_HOPS) {
        this.queue.unshift(name);
        return undefined;
      }
      if (e === "ENOENT") throw notFound(sent);
      throw changed(sent);
    }
    this.stack.push(fd);
    this.rel.push(name);
    confirmOpened(this.at, fd);
    // Asked of the directory now open, so a write never lands in a git dir of any name.
    if (intent === "write" && gitDirWithheld(rules, fd)) throw gitWithheld(sent);
    return undefined;
  }

  /** The path names the root itself (or climbed back to it): read as a directory, never written whole. */
  private atRoot(): ReadPath {
    const { sent, intent, root } = this.at;
    if (intent === "write")
      throw pathError("outside", sent, "is a root, which cannot be written as a whole", ROOT_HINT);
    if (this.stack.length === 1) this.at.rootMoved?.(); // nothing below it is named here to show a kept root moved
    const fd = openSync(inFd(this.top), O_RDONLY | O_DIRECTORY);
    return new ReadPath(sent, this.rel.join("/"), fd, fstatSync(fd), root, this.keeper);
  }

  /** The last name: the read and hard-link rules, then opened for reading, or its parent handed back for writing. */
  private finish(name: string, st: EntryStat): OpenedPath {
    const { sent, intent, rules, root } = this.at;
    const rel = this.rel;
    const inGitDir = () =>
      rel.includes(GIT_DIR_NAME) || this.stack.some((fd) => isGitDir(inFd(fd))) || this.at.rootInGit();
    if (intent === "read" && gitSecretWithheld(rules, rel[rel.length - 1], name, inGitDir))
      throw gitSecretRefused(sent);
    if (hardlinkWithheld(rules, st)) throw hardlinkRefused(sent);
    if (intent === "write") {
      confirmTarget(this.at, this.top, name, st.isDirectory());
      return this.writeHandle(name, st as Stats); // a write's entry is lstat's (step)
    }
    // Neither a file nor a directory (a device, a FIFO, a socket) is opened as a name only: opening a device has its
    // own effects (a watchdog armed, a tape rewound), a FIFO's writer is let go, and no capability reads one.
    const flags = st.isFile() || st.isDirectory() ? O_RDONLY | O_NONBLOCK : O_PATH;
    let fd: number;
    try {
      fd = openIn(this.top, name, flags | O_NOFOLLOW | (st.isDirectory() ? O_DIRECTORY : 0));
    } catch (err) {
      const e = (err as NodeJS.ErrnoException).code;
      throw e === "ENOENT" ? notFound(sent) : e === "EACCES" ? unreadable(sent) : changed(sent);
    }
    try {
      const { stat, mountRoot } = openedStat(fd);
      if (stat.dev !== st.dev || stat.ino !== st.ino) throw changed(sent);
      // in the root itself, its real path is the root's and its name, where the root's is known to hold now
      const known = this.root.realNow && this.stack.length === 1 ? realEntry(this.at.rootReal, name) : undefined;
      confirmOpened(this.at, fd, stat, known, { mountRoot });
      return new ReadPath(sent, [...rel, name].join("/"), fd, stat, root, this.keeper);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** The handle of a write: the directory it lands in is taken off the stack, to be closed with the handle. */
  private writeHandle(name: string, existing: Stats | null): WritePath {
    const { sent, root } = this.at;
    const rel = [...this.rel, name].join("/");
    // a kept root stays kept: the handle is given its own descriptor of the same directory
    const keep = this.stack.length === 1 && this.root.kept === true;
    const parentFd = keep ? openSync(inFd(this.top), O_RDONLY | O_DIRECTORY) : (this.stack.pop() as number);
    return new WritePath(sent, rel, parentFd, name, existing, root, this.keeper);
  }
}
