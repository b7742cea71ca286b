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
  type Stats,
} from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { PathAccess } from "../core/capability.ts";
import { RtaError } from "../core/errors.ts";

/** Linux's O_PATH: a descriptor that names a directory without the right to list it, enough to walk through. */
const O_PATH = 0o10000000;
const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/** The most symlinks one path may pass through, as the kernel's own limit; past it, a loop. */
const MAX_LINK_HOPS = 40;
/** PATH_MAX on Linux; a longer path is no path. */
const MAX_PATH_BYTES = 4096;
/** Names that are never a file's own: the kernel's view of processes and devices. */
const SYSTEM_WITHHELD = ["/proc", "/sys"];

export type PathIntent = "read" | "write";

export interface OpenOptions {
  /** for a write: make the missing directories above the last name, each inside the one before */
  makeParents?: boolean;
}

export interface GateRules {
  /** real paths that are never opened, even under a root: rta's data and config dirs */
  withheld: string[];
  /** a regular file with more than one hard link may be opened */
  hardlinks: boolean;
  /** .git internals are not written, and its credential files not read */
  git: boolean;
  /** the kernel's own trees (/proc, /sys) are withheld */
  system: boolean;
}

/** A path opened for reading: a descriptor on the file or directory itself. */
export interface ReadPath {
  intent: "read";
  /** the path as the caller sent it */
  sent: string;
  /** where it is, relative to its root ("" for the root itself) */
  rel: string;
  fd: number;
  stat: Stats;
  /** the root it was opened under, as configured */
  root: string;
}

/** A path to write: its parent directory opened, and the name in it, which may not exist yet. */
export interface WritePath {
  intent: "write";
  sent: string;
  rel: string;
  /** a descriptor (O_PATH) on the directory the name lives in */
  parentFd: number;
  name: string;
  /** what is there now, not followed if it is a link; null when nothing is */
  existing: Stats | null;
  root: string;
}

export type GatedPath = ReadPath | WritePath;

export interface RootStatus {
  path: string;
  readable: boolean;
  /** why not, with the fix */
  problem?: string;
}

/** `/proc/self/fd/<fd>/<name>`: a name looked up inside an opened directory. */
export function inFd(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

/** True when `path` is `base` or lies under it, compared by whole components, never by string prefix. */
export function isUnder(path: string, base: string): boolean {
  if (base === "/") return path.startsWith("/");
  return path === base || path.startsWith(`${base}/`);
}

function code(
  c: "outside" | "symlink" | "hardlink" | "withheld" | "unreadable" | "invalid",
  sent: string,
  message: string,
  hint: string,
): RtaError {
  return new RtaError(`core.path.${c}`, `${JSON.stringify(sent)} ${message}`, hint);
}

const OUTSIDE_HINT =
  "paths are confined to the roots the server was started with; ask the person running rta to add a root";

export class PathGate {
  readonly roots: string[];

  /** `roots` are absolute; the first is where relative paths start. */
  constructor(
    roots: string[],
    readonly rules: GateRules,
  ) {
    this.roots = roots.map((r) => resolve(r));
  }

  /** Whether each root can be read now: an unreadable one is refused until it can be. */
  status(): RootStatus[] {
    return this.roots.map((path) => {
      try {
        closeSync(openSync(path, O_RDONLY | O_DIRECTORY));
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
      throw code("invalid", sent.replaceAll("\0", "\\0"), "holds a NUL byte", "send the path without it");
    if (Buffer.byteLength(sent) > MAX_PATH_BYTES)
      throw code("invalid", `${sent.slice(0, 40)}...`, `is longer than ${MAX_PATH_BYTES} bytes`, "send a shorter path");
    const { root, parts } = this.pick(sent);
    let rootFd: number;
    try {
      rootFd = openSync(root, O_RDONLY | O_DIRECTORY);
    } catch {
      throw code(
        "unreadable",
        sent,
        "lies under a root the server cannot read",
        "the person running rta can see why in the server's banner, and fix it",
      );
    }
    const rootReal = readlinkSync(inFd(rootFd));
    try {
      this.confirm(sent, rootFd, rootReal, "");
    } catch (err) {
      closeSync(rootFd);
      throw err;
    }
    return this.walk(sent, intent, root, rootFd, rootReal, parts, options.makeParents === true);
  }

  private pick(sent: string): { root: string; parts: string[] } {
    if (!isAbsolute(sent)) {
      if (this.roots.length === 0) throw code("outside", sent, "is outside the roots", OUTSIDE_HINT);
      return { root: this.roots[0] as string, parts: sent.split("/") };
    }
    const clean = sent.replace(/\/+/g, "/");
    for (const root of this.roots) {
      for (const base of rootNames(root)) {
        if (isUnder(clean, base)) return { root, parts: clean.slice(base === "/" ? 1 : base.length).split("/") };
      }
    }
    throw code("outside", sent, "is outside the roots", OUTSIDE_HINT);
  }

  /** Walks from the root's descriptor; every descriptor it opened is closed but the one it hands back. */
  private walk(
    sent: string,
    intent: PathIntent,
    root: string,
    rootFd: number,
    rootReal: string,
    parts: string[],
    makeParents: boolean,
  ): GatedPath {
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
          throw code("outside", sent, "climbs above its root", OUTSIDE_HINT);
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
              ? code("symlink", sent, "passes through a link that leaves its root", OUTSIDE_HINT)
              : code("outside", sent, "climbs above its root", OUTSIDE_HINT);
          }
          closeSync(stack.pop() as number);
          rel.pop();
          continue;
        }
        const last = queue.length === 0;
        if (this.rules.git && intent === "write" && name === ".git") {
          throw code(
            "withheld",
            sent,
            "is inside .git, which is never written",
            "work on the files of the repository, not its internals",
          );
        }
        let st: Stats;
        try {
          st = lstatSync(inFd(top(), name));
        } catch (err) {
          const e = (err as NodeJS.ErrnoException).code;
          if (e === "ENOENT" && last && intent === "write") {
            this.confirmTarget(sent, top(), name, false);
            const parentFd = stack.pop() as number;
            return { intent, sent, rel: [...rel, name].join("/"), parentFd, name, existing: null, root };
          }
          if (e === "ENOENT" && makeParents && intent === "write") {
            // Made inside the directory already opened, then walked into like any other.
            this.confirmTarget(sent, top(), name, false);
            try {
              mkdirSync(inFd(top(), name), 0o755);
            } catch (made) {
              // made by someone else since the lstat: looked at again like anything else, within the hop limit
              if ((made as NodeJS.ErrnoException).code !== "EEXIST" || ++hops > MAX_LINK_HOPS) throw made;
            }
            queue.unshift(name);
            continue;
          }
          if (e === "ENOENT" || e === "ENOTDIR") throw notFound(sent);
          if (e === "ENAMETOOLONG")
            throw code("invalid", sent, "has a name longer than the file system allows", "send a shorter name");
          if (e === "EACCES")
            throw code(
              "unreadable",
              sent,
              "cannot be read by the server",
              "the person running rta can change its mode",
            );
          throw err;
        }
        if (st.isSymbolicLink()) {
          if (++hops > MAX_LINK_HOPS)
            throw code("symlink", sent, "passes through a loop of links", "send the path the links point to");
          if (last && intent === "write") {
            // Writing at a link's name replaces the link (rename does not follow it); it never writes where it points.
            this.confirmTarget(sent, top(), name, true);
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
              throw code("symlink", sent, "passes through a link that leaves its root", OUTSIDE_HINT);
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
        if (last) return this.finish(sent, intent, root, rootReal, stack, rel, name, st);
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
          throw code("symlink", sent, "changed while it was opened", "try again");
        }
        stack.push(fd);
        rel.push(name);
        this.confirm(sent, fd, rootReal, name);
      }
      // The path names the root itself (or climbed back to it).
      if (intent === "write")
        throw code("outside", sent, "is a root, which cannot be written as a whole", "name something inside it");
      const fd = openSync(inFd(top()), O_RDONLY | O_DIRECTORY);
      return { intent, sent, rel: rel.join("/"), fd, stat: fstatSync(fd), root };
    } finally {
      leave(0);
    }
  }

  /** Opens the last component for reading, or hands its parent back for writing, after the final checks. */
  private finish(
    sent: string,
    intent: PathIntent,
    root: string,
    rootReal: string,
    stack: number[],
    rel: string[],
    name: string,
    st: Stats,
  ): GatedPath {
    const relPath = [...rel, name].join("/");
    if (this.rules.git && intent === "read" && isGitSecret(rel, name)) {
      throw code(
        "withheld",
        sent,
        "can carry credentials, so it is not read",
        "read the repository's files, not its credential stores",
      );
    }
    if (st.isFile() && st.nlink > 1 && !this.rules.hardlinks) {
      throw code(
        "hardlink",
        sent,
        "is a file with more than one hard link, which could be a file outside the root",
        "the person running rta can allow hard links in config (paths.hardlinks = true)",
      );
    }
    const parentFd = stack[stack.length - 1] as number;
    if (intent === "write") {
      this.confirm(sent, parentFd, rootReal, name);
      this.confirmTarget(sent, parentFd, name, true);
      stack.pop();
      return { intent, sent, rel: relPath, parentFd, name, existing: st, root };
    }
    let fd: number;
    try {
      fd = openSync(inFd(parentFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (st.isDirectory() ? O_DIRECTORY : 0));
    } catch (err) {
      const e = (err as NodeJS.ErrnoException).code;
      if (e === "ENOENT") throw notFound(sent);
      if (e === "EACCES")
        throw code("unreadable", sent, "cannot be read by the server", "the person running rta can change its mode");
      throw code("symlink", sent, "changed while it was opened", "try again");
    }
    const opened = fstatSync(fd);
    if (opened.dev !== st.dev || opened.ino !== st.ino) {
      closeSync(fd);
      throw code("symlink", sent, "changed while it was opened", "try again");
    }
    try {
      this.confirm(sent, fd, rootReal, name);
    } catch (err) {
      closeSync(fd);
      throw err;
    }
    return { intent, sent, rel: relPath, fd, stat: opened, root };
  }

  /** What the kernel says an opened descriptor is must lie under the root and outside what is withheld. */
  private confirm(sent: string, fd: number, rootReal: string, _name: string): void {
    const real = readlinkSync(inFd(fd));
    if (!isUnder(real, rootReal)) throw code("outside", sent, "is outside the roots", OUTSIDE_HINT);
    const withheld = [...this.rules.withheld, ...(this.rules.system ? SYSTEM_WITHHELD : [])];
    if (withheld.some((w) => isUnder(real, w))) {
      throw code("withheld", sent, "is withheld from agents", "it is not a place an agent's call may read or write");
    }
  }

  /**
   * A write names an entry, not a descriptor: the entry itself may not be
   * withheld, nor hold anything withheld (moving or removing a directory
   * above rta's own would carry them off with it).
   */
  private confirmTarget(sent: string, parentFd: number, name: string, exists: boolean): void {
    const parent = readlinkSync(inFd(parentFd));
    const target = parent === "/" ? `/${name}` : `${parent}/${name}`;
    const withheld = [...this.rules.withheld, ...(this.rules.system ? SYSTEM_WITHHELD : [])];
    // what is being made holds nothing yet: only what is there can carry a withheld dir off with it
    if (withheld.some((w) => isUnder(target, w) || (exists && isUnder(w, target)))) {
      throw code(
        "withheld",
        sent,
        "is withheld from agents, or holds something that is",
        "it is not a place an agent's call may write, move or remove",
      );
    }
  }

  /** Whether a real path is one a walk should skip: withheld, or the kernel's own. */
  isWithheld(real: string): boolean {
    return [...this.rules.withheld, ...(this.rules.system ? SYSTEM_WITHHELD : [])].some((w) => isUnder(real, w));
  }
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

/**
 * Files in .git that can carry credentials (at any depth: submodules and
 * worktrees keep their own), and the stores git keeps beside a home:
 * ~/.git-credentials and the XDG one, <config>/git/credentials.
 */
export function isGitSecret(rel: readonly string[], name: string): boolean {
  if (name === ".git-credentials") return true;
  if (name === "credentials" && rel[rel.length - 1] === "git") return true;
  const inGit = rel.includes(".git");
  return inGit && (name === "config" || name === "credentials" || name.startsWith("config."));
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

/** The rules for agents: rta's own dirs and the kernel's trees withheld, no hard links, .git guarded. */
export function agentRules(dirs: { data: string; config: string }, hardlinks = false): GateRules {
  // Not made yet, a dir is withheld where it will be: under the real path of the nearest part that is there.
  const real = (p: string) => {
    const rest: string[] = [];
    for (let head = resolve(p); ; head = dirname(head)) {
      try {
        return join(realpathSync(head), ...rest);
      } catch {
        if (dirname(head) === head) return resolve(p);
        rest.unshift(basename(head));
      }
    }
  };
  return {
    withheld: [...new Set([resolve(dirs.data), real(dirs.data), resolve(dirs.config), real(dirs.config)])],
    hardlinks,
    git: true,
    system: true,
  };
}

/** A gate as a capability sees it while it runs. */
export function accessOf(gate: PathGate, cwd?: string): PathAccess {
  return {
    open: (sent, intent, options) => {
      if (cwd === undefined) return gate.open(sent, intent, options);
      // Opened from the current directory, but shown as the person typed it.
      return { ...gate.open(resolve(cwd, sent), intent, options), sent };
    },
    isWithheld: (real) => gate.isWithheld(real),
    hardlinks: gate.rules.hardlinks,
  };
}

/** The gate a person's own calls use: the whole file system from the current directory, nothing withheld. */
export function personAccess(cwd = process.cwd()): PathAccess {
  return accessOf(new PathGate(["/"], { withheld: [], hardlinks: true, git: false, system: false }), cwd);
}

/** The same gate with a capability's declared default roots added after the server's. */
export function withRoots(gate: PathGate, extra: readonly string[] | undefined): PathGate {
  if (!extra || extra.length === 0) return gate;
  return new PathGate([...gate.roots, ...extra.filter((r) => !gate.roots.includes(r))], gate.rules);
}
