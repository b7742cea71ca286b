/**
 * The path gate: every path an agent's call would use is opened from a root,
 * one component at a time, on what is opened rather than on a string.
 *
 * Each step opens the next component through `/proc/self/fd/<dirfd>/<name>`
 * with O_NOFOLLOW, which has openat semantics: it lands in the directory
 * already opened even if the path is swapped for a symlink meanwhile. A
 * symlink is read and followed by the gate itself, only while it stays inside
 * the root; `..` pops the directory actually entered and may not climb above
 * the root. What was finally opened is confirmed by its descriptor: fstat
 * (device, inode, link count) and the real path the kernel reports for it.
 * The check and the open are one operation, so there is nothing to race.
 *
 * rta's own places are worked out when a path is opened (ownPlaces.ts): what
 * lies inside them is not opened, and no write may land on the way to one,
 * so a place cannot be moved, planted or relinked before it exists. A git
 * dir is known by what it holds, whatever its name (gitDirs.ts). What each
 * step may open, and where a write may land, is asked of withheld.ts.
 *
 * Refusals, each naming the path as the agent sent it and nothing of rta's
 * own layout: core.path.outside, core.path.symlink, core.path.hardlink,
 * core.path.withheld, core.path.unreadable, core.path.invalid; and
 * fs.notfound when there is nothing there.
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  rmdirSync,
  type Stats,
} from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { GatedPath, OpenOptions, PathIntent, WriteHandle as WritePath } from "../core/access.ts";
import type { PathAccess } from "../core/capability.ts";
import { RtaError } from "../core/errors.ts";
import { canCarryGitSecret, GIT_DIR_NAME, isGitDir, isGitMark, underGitDir } from "./gitDirs.ts";
import { idOf, isUnder, MAX_LINK_HOPS, type OwnPlaces, ownPlacesNow, wayTo } from "./ownPlaces.ts";
import { inFd, O_PATH } from "./procFd.ts";
import {
  confirmOpened,
  confirmParent,
  confirmPlace,
  confirmTarget,
  type GateRules,
  gitWithheld,
  OUTSIDE_HINT,
  pathError,
  ROOT_HINT,
  type Walk,
  withheldBy,
} from "./withheld.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** PATH_MAX on Linux; a longer path is no path. */
const MAX_PATH_BYTES = 4096;

/** The path value types live beside the other handles, in core: a capability sees only those. */
export type {
  GatedPath,
  OpenOptions,
  PathIntent,
  ReadHandle as ReadPath,
  WriteHandle as WritePath,
} from "../core/access.ts";

export interface RootStatus {
  path: string;
  readable: boolean;
  /** why not, with the fix */
  problem?: string;
}

export class PathGate {
  readonly roots: string[];

  /**
   * `roots` are absolute; the first is where relative paths start. `pins`
   * holds each root's device and inode as first opened (shared by the gates
   * made from this one): a root is opened by its path at each call, and a
   * path another server's agent can reach (this root inside its root) may
   * since have been replaced by a link to a directory outside every root.
   * What is there then is refused, until a restart serves it as the root.
   */
  constructor(
    roots: string[],
    readonly rules: GateRules,
    readonly pins: Map<string, string> = new Map(),
  ) {
    this.roots = roots.map((r) => resolve(r));
  }

  /** Whether each root can be read now: an unreadable one is refused until it can be. */
  status(): RootStatus[] {
    return this.roots.map((path) => {
      try {
        const fd = openSync(path, O_RDONLY | O_DIRECTORY);
        try {
          if (!this.pinned(path, fd))
            return { path, readable: false, problem: "it was replaced since the server started; restart the server" };
        } finally {
          closeSync(fd);
        }
        return { path, readable: true };
      } catch (err) {
        const e = (err as NodeJS.ErrnoException).code;
        const problem =
          e === "ENOENT"
            ? "it does not exist; create it or drop that --root"
            : e === "ENOTDIR"
              ? "it is not a directory; give a directory to --root"
              : e === "EPERM"
                ? "the operating system keeps it from the program that started the server; grant that program access to the folder (on macOS: Privacy & Security, Files and Folders)"
                : "it cannot be listed (its mode lets it be searched but not read); give it read permission, e.g. chmod u+r";
        return { path, readable: false, problem };
      }
    });
  }

  /**
   * Opens `sent` under a root for `intent`. A relative path starts at the
   * first root; an absolute one must fall under one of them. The caller
   * closes what it is given (see closeGated).
   */
  open(sent: string, intent: PathIntent, options: OpenOptions = {}): GatedPath {
    if (sent.includes("\0"))
      throw pathError("invalid", sent.replaceAll("\0", "\\0"), "holds a NUL byte", "send the path without it");
    if (Buffer.byteLength(sent) > MAX_PATH_BYTES)
      throw pathError(
        "invalid",
        `${sent.slice(0, 40)}...`,
        `is longer than ${MAX_PATH_BYTES} bytes`,
        "send a shorter path",
      );
    const { root, parts } = this.pick(sent);
    let rootFd: number;
    try {
      rootFd = openSync(root, O_RDONLY | O_DIRECTORY);
    } catch {
      throw pathError(
        "unreadable",
        sent,
        "lies under a root the server cannot read",
        "the person running rta can see why in the server's banner, and fix it",
      );
    }
    if (!this.pinned(root, rootFd)) {
      closeSync(rootFd);
      throw pathError(
        "unreadable",
        sent,
        "lies under a root that was replaced since the server started",
        "the person running rta can restart the server to serve what is there now",
      );
    }
    const rootReal = readlinkSync(inFd(rootFd));
    let aboveRoot: boolean | undefined;
    let rootWay: string[] | undefined;
    const at: Walk = {
      sent,
      intent,
      root,
      rootReal,
      rules: this.rules,
      own: this.ownNow(),
      rootWay: () => {
        rootWay ??= this.roots.flatMap(wayTo);
        return rootWay;
      },
      rootInGit: () => {
        aboveRoot ??= underGitDir(rootReal);
        return aboveRoot;
      },
    };
    try {
      confirmOpened(at, rootFd);
      if (intent === "write" && this.rules.git && at.rootInGit()) throw gitWithheld(sent);
    } catch (err) {
      closeSync(rootFd);
      throw err;
    }
    return this.walk(at, rootFd, parts, options.makeParents === true);
  }

  /** Whether an opened root is the directory it was when first opened (which pins it). */
  private pinned(root: string, fd: number): boolean {
    const id = idOf(fstatSync(fd));
    const was = this.pins.get(root);
    if (was === undefined) this.pins.set(root, id);
    return was === undefined || was === id;
  }

  /** rta's own places and the way to them, as they stand now. */
  ownNow(): OwnPlaces {
    return ownPlacesNow(this.rules.withheld, this.rules.system);
  }

  private pick(sent: string): { root: string; parts: string[] } {
    if (!isAbsolute(sent)) {
      if (this.roots.length === 0) throw pathError("outside", sent, "is outside the roots", OUTSIDE_HINT);
      return { root: this.roots[0] as string, parts: sent.split("/") };
    }
    const clean = sent.replace(/\/+/g, "/");
    for (const root of this.roots) {
      for (const base of rootNames(root)) {
        if (isUnder(clean, base)) return { root, parts: clean.slice(base === "/" ? 1 : base.length).split("/") };
      }
    }
    throw pathError("outside", sent, "is outside the roots", OUTSIDE_HINT);
  }

  /** Walks from the root's descriptor; every descriptor it opened is closed but the one it hands back. */
  private walk(at: Walk, rootFd: number, parts: string[], makeParents: boolean): GatedPath {
    const { sent, intent, root, rootReal } = at;
    const stack: number[] = [rootFd];
    const rel: string[] = [];
    const queue = parts.filter((p) => p !== "" && p !== ".");
    // With parents to make, a path that climbs above its root as written is refused before any is made.
    if (makeParents) {
      let depth = 0;
      for (const p of queue) {
        depth += p === ".." ? -1 : 1;
        if (depth < 0) {
          closeSync(rootFd);
          throw pathError("outside", sent, "climbs above its root", OUTSIDE_HINT);
        }
      }
    }
    let hops = 0;
    const top = () => stack[stack.length - 1] as number;
    const leave = (keep = 0) => {
      while (stack.length > keep) closeSync(stack.pop() as number);
    };
    try {
      while (queue.length > 0) {
        const name = queue.shift() as string;
        if (name === "..") {
          if (stack.length === 1) {
            throw hops > 0
              ? pathError("symlink", sent, "passes through a link that leaves its root", OUTSIDE_HINT)
              : pathError("outside", sent, "climbs above its root", OUTSIDE_HINT);
          }
          closeSync(stack.pop() as number);
          rel.pop();
          continue;
        }
        const last = queue.length === 0;
        if (this.rules.git && intent === "write" && name === GIT_DIR_NAME) throw gitWithheld(sent);
        let st: Stats;
        try {
          st = lstatSync(inFd(top(), name));
        } catch (err) {
          const e = (err as NodeJS.ErrnoException).code;
          if (e === "ENOENT" && last && intent === "write") {
            confirmTarget(at, top(), name, false);
            const parentFd = stack.pop() as number;
            return { intent, sent, rel: [...rel, name].join("/"), parentFd, name, existing: null, root };
          }
          if (e === "ENOENT" && makeParents && intent === "write") {
            // Made inside the directory already opened, then walked into like any other.
            confirmParent(at, top(), name, queue);
            try {
              mkdirSync(inFd(top(), name), 0o755);
              if (this.rules.git) undoIfGitDir(top(), name, sent, () => rmdirSync(inFd(top(), name)));
            } catch (made) {
              // made by someone else since the lstat: looked at again like anything else, within the hop limit
              if ((made as NodeJS.ErrnoException).code !== "EEXIST" || ++hops > MAX_LINK_HOPS) throw made;
            }
            queue.unshift(name);
            continue;
          }
          // A missing parent on the way to one of rta's places is said as the place, not as an absence.
          if (e === "ENOENT" && intent === "write") confirmPlace(at, top(), name);
          if (e === "ENOENT" || e === "ENOTDIR") throw notFound(sent);
          if (e === "ENAMETOOLONG")
            throw pathError("invalid", sent, "has a name longer than the file system allows", "send a shorter name");
          if (e === "EACCES")
            throw pathError(
              "unreadable",
              sent,
              "cannot be read by the server",
              "the person running rta can change its mode",
            );
          throw err;
        }
        if (st.isSymbolicLink()) {
          if (++hops > MAX_LINK_HOPS)
            throw pathError("symlink", sent, "passes through a loop of links", "send the path the links point to");
          if (last && intent === "write") {
            // Writing at a link's name replaces the link (rename does not follow it); it never writes where it points.
            confirmTarget(at, top(), name, false);
            const parentFd = stack.pop() as number;
            return { intent, sent, rel: [...rel, name].join("/"), parentFd, name, existing: st, root };
          }
          let target: string;
          try {
            target = readlinkSync(inFd(top(), name));
          } catch (err) {
            const e = (err as NodeJS.ErrnoException).code;
            if (e === "ENOENT") throw notFound(sent);
            // No longer a link since the lstat: look at it again, within the hop limit.
            if (e === "EINVAL") {
              queue.unshift(name);
              continue;
            }
            throw err;
          }
          if (isAbsolute(target)) {
            const clean = target.replace(/\/+/g, "/");
            const base = [rootReal, root].find((b) => isUnder(clean, b));
            if (base === undefined)
              throw pathError("symlink", sent, "passes through a link that leaves its root", OUTSIDE_HINT);
            leave(1);
            rel.length = 0;
            queue.unshift(
              ...clean
                .slice(base === "/" ? 1 : base.length)
                .split("/")
                .filter((p) => p !== "" && p !== "."),
            );
          } else {
            queue.unshift(...target.split("/").filter((p) => p !== "" && p !== "."));
          }
          continue;
        }
        if (last) return this.finish(at, stack, rel, name, st);
        if (!st.isDirectory()) throw notFound(sent);
        let fd: number;
        try {
          fd = openSync(inFd(top(), name), O_PATH | O_DIRECTORY | O_NOFOLLOW);
        } catch (err) {
          const e = (err as NodeJS.ErrnoException).code;
          // Swapped for a link or a file since the lstat: look again, within the hop limit.
          if ((e === "ELOOP" || e === "ENOTDIR") && ++hops <= MAX_LINK_HOPS) {
            queue.unshift(name);
            continue;
          }
          if (e === "ENOENT") throw notFound(sent);
          throw pathError("symlink", sent, "changed while it was opened", "try again");
        }
        stack.push(fd);
        rel.push(name);
        confirmOpened(at, fd);
        // Asked of the directory now open, so a write never lands in a git dir of any name.
        if (this.rules.git && intent === "write" && isGitDir(inFd(fd))) throw gitWithheld(sent);
      }
      // The path names the root itself (or climbed back to it).
      if (intent === "write")
        throw pathError("outside", sent, "is a root, which cannot be written as a whole", ROOT_HINT);
      const fd = openSync(inFd(top()), O_RDONLY | O_DIRECTORY);
      return { intent, sent, rel: rel.join("/"), fd, stat: fstatSync(fd), root };
    } finally {
      leave(0);
    }
  }

  /** Opens the last component for reading, or hands its parent back for writing, after the final checks. */
  private finish(at: Walk, stack: number[], rel: string[], name: string, st: Stats): GatedPath {
    const { sent, intent, root } = at;
    const relPath = [...rel, name].join("/");
    const inGitDir = () => rel.includes(GIT_DIR_NAME) || stack.some((fd) => isGitDir(inFd(fd))) || at.rootInGit();
    if (this.rules.git && intent === "read" && canCarryGitSecret(rel[rel.length - 1], name, inGitDir)) {
      throw pathError(
        "withheld",
        sent,
        "can carry credentials, so it is not read",
        "read the repository's files, not its credential stores",
      );
    }
    if (st.isFile() && st.nlink > 1 && !this.rules.hardlinks) {
      throw pathError(
        "hardlink",
        sent,
        "is a file with more than one hard link, which could be a file outside the root",
        "the person running rta can allow hard links in config (paths.hardlinks = true)",
      );
    }
    const parentFd = stack[stack.length - 1] as number;
    if (intent === "write") {
      confirmTarget(at, parentFd, name, st.isDirectory());
      stack.pop();
      return { intent, sent, rel: relPath, parentFd, name, existing: st, root };
    }
    // What is neither a file nor a directory (a device, a FIFO, a socket) is opened as a name only: opening a
    // device for reading has its own effects (a watchdog armed, a tape rewound), a FIFO's writer is let go, and
    // no capability reads one.
    const flags = st.isFile() || st.isDirectory() ? O_RDONLY | O_NONBLOCK : O_PATH;
    let fd: number;
    try {
      fd = openSync(inFd(parentFd, name), flags | O_NOFOLLOW | (st.isDirectory() ? O_DIRECTORY : 0));
    } catch (err) {
      const e = (err as NodeJS.ErrnoException).code;
      if (e === "ENOENT") throw notFound(sent);
      if (e === "EACCES")
        throw pathError(
          "unreadable",
          sent,
          "cannot be read by the server",
          "the person running rta can change its mode",
        );
      throw pathError("symlink", sent, "changed while it was opened", "try again");
    }
    const opened = fstatSync(fd);
    if (opened.dev !== st.dev || opened.ino !== st.ino) {
      closeSync(fd);
      throw pathError("symlink", sent, "changed while it was opened", "try again");
    }
    try {
      confirmOpened(at, fd);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return { intent, sent, rel: relPath, fd, stat: opened, root };
  }

  /** Whether a real path is one a walk should skip: one of rta's places, another rta data dir, or the kernel's own. */
  isWithheld(real: string): boolean {
    return withheldBy(this.rules, this.ownNow(), real);
  }

  /** The same against one look at rta's places. */
  withheldBy(own: OwnPlaces, real: string): boolean {
    return withheldBy(this.rules, own, real);
  }
}

/**
 * After a write made a new entry: whether it made its directory a git dir,
 * and if so, undo it and refuse. The gate asked before the write
 * (wouldBecomeGitDir), but two servers on one root can each add one of the
 * entries that make a git dir while neither sees the other's, and an agent
 * that plants a config first then owns the git dir they make. Whichever entry
 * is made last sees the others once it is made, so asking again after the
 * make closes that. `undo` takes back what the write did.
 */
export function confirmMade(gate: PathAccess, p: WritePath, undo: () => void): void {
  if (gate.git && p.existing === null) undoIfGitDir(p.parentFd, p.name, p.sent, undo);
}

function undoIfGitDir(parentFd: number, name: string, sent: string, undo: () => void): void {
  if (!isGitMark(name) || !isGitDir(inFd(parentFd))) return;
  try {
    undo();
  } catch {
    // changed again meanwhile: what is there now is asked about by the next write that touches it
  }
  throw gitWithheld(sent);
}

/** A root by the name it was given and by its real path, so an absolute path may use either. */
function rootNames(root: string): string[] {
  try {
    const real = realpathSync(root);
    return real === root ? [root] : [root, real];
  } catch {
    return [root];
  }
}

function notFound(sent: string): RtaError {
  return new RtaError("fs.notfound", `${JSON.stringify(sent)} does not exist`, "fs.list shows what is there");
}

export function closeGated(p: GatedPath): void {
  try {
    closeSync(p.intent === "read" ? p.fd : p.parentFd);
  } catch {
    // already closed
  }
}

/**
 * The rules for agents: rta's own places withheld (its data and config dirs,
 * and the identity file RTA_KV_IDENTITY names, when it does), and `also`
 * guarded the same way (git's config beside a home); the kernel's trees too,
 * no hard links, git dirs guarded. The places are kept as given and looked up
 * each time a path is opened, since they may not exist yet.
 */
export function agentRules(
  dirs: { data: string; config: string; identity?: string; also?: readonly string[] },
  hardlinks = false,
): GateRules {
  const places = [dirs.data, dirs.config, ...(dirs.identity ? [dirs.identity] : []), ...(dirs.also ?? [])];
  return { withheld: [...new Set(places.map((p) => resolve(p)))], hardlinks, git: true, system: true };
}

/** A gate as a capability sees it while it runs: a walk asks about its directories against one look at rta's places. */
export function accessOf(gate: PathGate, cwd?: string): PathAccess {
  let own: OwnPlaces | undefined;
  return {
    open: (sent, intent, options) => {
      if (cwd === undefined) return gate.open(sent, intent, options);
      // Opened from the current directory, but shown as the person typed it.
      return { ...gate.open(resolve(cwd, sent), intent, options), sent };
    },
    isWithheld: (real) => {
      own ??= gate.ownNow();
      return gate.withheldBy(own, real);
    },
    hardlinks: gate.rules.hardlinks,
    git: gate.rules.git,
  };
}

/** The gate a person's own calls use: the whole file system from the current directory, nothing withheld. */
export function personAccess(cwd = process.cwd()): PathAccess {
  return accessOf(new PathGate(["/"], { withheld: [], hardlinks: true, git: false, system: false }), cwd);
}

/** The same gate with a capability's declared default roots added after the server's. */
export function withRoots(gate: PathGate, extra: readonly string[] | undefined): PathGate {
  if (!extra || extra.length === 0) return gate;
  return new PathGate([...gate.roots, ...extra.filter((r) => !gate.roots.includes(r))], gate.rules, gate.pins);
}
