/**
 * The roots a path gate serves: which one a sent path falls under, each
 * found by its path at each call and pinned to the directory it was when
 * first opened, and whether each can be read now (the server's banner and
 * `rta doctor` name one that cannot, with the fix). A path outside every root
 * is refused as core.path.outside; under an unreadable or replaced root, as
 * core.path.unreadable.
 */
import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync, type Stats } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { settledBefore } from "../../core/recheck.ts";
import { cPath, type Look, lookOf, looksAsSeen, mountOf } from "./look.ts";
import { idOf, isUnder } from "./ownPlaces.ts";
import type { LookedDir } from "./placesMemo.ts";
import { inFd } from "./procFd.ts";
import { type WayDir, wayHolds, wayTo } from "./rootWay.ts";
import { OUTSIDE_HINT, pathError, type RootFacts } from "./rules.ts";

const { O_RDONLY, O_DIRECTORY } = constants;

export interface RootStatus {
  path: string;
  readable: boolean;
  /** why not, with the fix */
  problem?: string;
}

export class Roots {
  readonly roots: string[];

  /**
   * `roots` are absolute; the first is where relative paths start. `pins`
   * holds each root's device and inode as first opened (shared by the gates
   * made from this one): a root is found by its path at each call, and a
   * path another server's agent can reach (this root inside its root) may
   * since have been replaced by a link to a directory outside every root.
   * What is there then is refused, until a restart serves it as the root.
   */
  constructor(
    roots: string[],
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
          if (!this.pinned(path, fstatSync(fd)))
            return { path, readable: false, problem: "it was replaced since the server started; restart the server" };
        } finally {
          closeSync(fd);
        }
        return { path, readable: true };
      } catch (err) {
        return { path, readable: false, problem: problemOf((err as NodeJS.ErrnoException).code) };
      }
    });
  }

  /** The root `sent` falls under, and its components below that root; refuses a path outside every root. */
  protected pick(sent: string): { root: string; parts: string[] } {
    if (!isAbsolute(sent)) {
      if (this.roots.length === 0) throw pathError("outside", sent, "is outside the roots", OUTSIDE_HINT);
      return { root: this.roots[0] as string, parts: sent.split("/") };
    }
    const clean = sent.includes("//") ? sent.replace(/\/+/g, "/") : sent;
    for (const root of this.roots) {
      for (const base of rootNames(root)) {
        if (isUnder(clean, base)) return { root, parts: clean.slice(base === "/" ? 1 : base.length).split("/") };
      }
    }
    throw pathError("outside", sent, "is outside the roots", OUTSIDE_HINT);
  }

  /**
   * Opens `root` for a walk to `sent`, with its fstat; refuses one that cannot be read, or was replaced since
   * first opened. The descriptor may be one kept from an earlier call (`kept`), which the walk must not close:
   * see KeptRoot for when one is.
   */
  protected openRoot(sent: string, root: string): OpenedRoot {
    const held = keptRoots.get(root);
    if (held !== undefined) {
      keptRoots.delete(root);
      // a way that changed, or a real path read again that differs, may have moved the root: opened again by its path
      const same = looksAsSeen(held.path, held.seen) && this.pinned(root, held.st);
      if (same && wayHolds(held.way) && (held.way !== undefined || wayAgain(held))) {
        keptRoots.set(root, held); // last in the order, as the one used last
        held.lookedNow = true;
        held.realNow = held.way !== undefined;
        return held;
      }
      closeSync(held.fd);
    }
    const openedAt = Date.now();
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
    const st = fstatSync(rootFd);
    if (!this.pinned(root, st)) {
      closeSync(rootFd);
      throw pathError(
        "unreadable",
        sent,
        "lies under a root that was replaced since the server started",
        "the person running rta can restart the server to serve what is there now",
      );
    }
    if (!settledBefore(st.ctimeMs, openedAt)) return { fd: rootFd, st };
    // the mount it was opened through, as a look at its path will say it: a bind mount of the root over itself
    // (made read-only) is the same directory, unchanged, and must not be written through the mount it covered
    const seen: Look = { ...lookOf(st), mount: mountOf(rootFd) };
    if (seen.mount === undefined && process.platform === "linux") return { fd: rootFd, st };
    const real = realOf(rootFd);
    if (real === undefined) return { fd: rootFd, st };
    // made from the descriptor's fstat, not a look by its path: no look to share in this open (lookedNow)
    const kept: KeptRoot = { fd: rootFd, st, kept: true, path: cPath(root), name: root, seen, facts: {}, real };
    kept.way = wayTo(real, openedAt);
    kept.wayAskedAt = openedAt;
    if (keptRoots.size >= MAX_KEPT_ROOTS) forgetOldest();
    keptRoots.set(root, kept);
    return kept;
  }

  /** Whether an opened root (its fstat) is the directory it was when first opened (which pins it). */
  private pinned(root: string, st: Stats): boolean {
    const id = idOf(st);
    const was = this.pins.get(root);
    if (was === undefined) this.pins.set(root, id);
    return was === undefined || was === id;
  }
}

/** A root opened for one walk: its descriptor and fstat, and whether it is kept (see KeptRoot). */
export interface OpenedRoot {
  fd: number;
  st: Stats;
  /** the descriptor is kept for later calls: the walk does not close it */
  kept?: boolean;
  /** what was asked of the kept root's descriptor, kept with it (see withheld in rules.ts) */
  facts?: RootFacts;
  /** the kept root's real path, as the kernel named its descriptor when it was opened */
  real?: string;
  /**
   * the root was looked at by its path in this open, and found as `seen` says (a kept root served again): the
   * places' check may take that look for its own of the same path (placesMemo.ts), asked in the same instant
   */
  lookedNow?: boolean;
  /**
   * the kept root's real path holds in this open: the root and every directory on its real path were looked at by
   * path and found unchanged since it was read (see KeptRoot's way)
   */
  realNow?: boolean;
}

/**
 * A root's descriptor kept between calls, which saves opening the root by its
 * path at each (an open, an fstat and a close), and what was asked of it.
 * Each call still looks at the root by its path first (one statx, with no
 * Stats built) and serves the kept descriptor only while that look finds the
 * same directory, with the same mode, owner and group, unchanged since, through
 * the same mount: so a root replaced, renamed or moved away is not served, nor
 * one bound over itself read-only, nor one made unreadable
 * (a chmod or chown, or an ACL set, moves its ctime; an ancestor the server
 * can no longer search fails the look), and an entry made or removed in it
 * (what would make it an rta data dir) moves its ctime too. Otherwise the
 * root is opened by its path as it always was, with its refusals. A root is
 * kept only when its ctime lies well before it was opened (settledBefore),
 * so a change after the open cannot share that ctime. Its real path is kept
 * too: renaming the root moves its ctime, and where an ancestor was renamed
 * and a link put in its place, what the walk opens is named by the kernel
 * under the new path, and the kept one is read again (pathGate.ts rootMoved).
 */
interface KeptRoot extends OpenedRoot {
  kept: true;
  /**
   * each directory on the root's real path above it (`/`, `/srv`, … for `/srv/x`) as looked at by its path once the
   * real path was read, each unchanged since well before the root was opened; none when one was not. Renaming the
   * root or any of them, or putting a link or a mount in place of one, changes the ctime of the directory it is in,
   * or what its path finds: while every one is found as it was, the root's real path is the one read. Where there
   * are none, the kernel is asked the real path of what a walk opens (open.ts).
   */
  way?: WayDir[];
  /** when its way was last looked for (Date.now()) */
  wayAskedAt?: number;
  /** the root's look and its way's, as lookedNow hands them out */
  looks?: readonly LookedDir[];
  /** the root's path, as statx takes it */
  path: Uint8Array;
  /** the root as given, the text of `path` */
  name: string;
  /** the look at it the descriptor was opened with */
  seen: Look;
  facts: RootFacts;
}

/**
 * The look at a kept root by its path that served it in this open, for the places' check (placesMemo.ts): none for
 * a root opened anew, whose look is its descriptor's. Refuses nothing.
 */
export function lookedNow(opened: OpenedRoot): readonly LookedDir[] | undefined {
  if (opened.lookedNow !== true) return undefined;
  const kept = opened as KeptRoot;
  // made once for the root's look and way as kept (wayAgain forgets it with the way it replaces): both are found as
  // they were whenever the root is served
  if (kept.looks === undefined) {
    const { name, seen, way } = kept;
    const root = { name, dev: seen.dev, ino: seen.ino, ctimeMs: seen.ctimeMs };
    kept.looks = way === undefined ? [root] : [root, ...way];
  }
  return kept.looks;
}

/**
 * A kept root's way looked for again, at most every WAY_AGAIN_MS, where one of its directories had changed too near
 * the root's opening to be taken: its real path is read again first, and the way kept when all now lie well before
 * that. False when the real path is not the one kept (the root moved): it is then opened again by its path.
 */
function wayAgain(held: KeptRoot): boolean {
  const at = Date.now();
  if (at - (held.wayAskedAt ?? 0) < WAY_AGAIN_MS) return true;
  held.wayAskedAt = at;
  const real = realOf(held.fd);
  if (real === undefined || real !== held.real) return false;
  held.way = wayTo(real, at);
  held.looks = undefined;
  return true;
}

/** How often an unsettled way is looked for again: as often as a change is sure to move a ctime (recheck.ts). */
const WAY_AGAIN_MS = 100;

/** The roots kept, by path, shared by every gate in the process (a person's "/" and a server's roots). */
const keptRoots = new Map<string, KeptRoot>();
/**
 * More roots than a server serves at once; past it, the one used longest ago is closed (a client's roots may
 * change, and a root no longer served should not stay open for long).
 */
const MAX_KEPT_ROOTS = 16;

/** Closes the root kept that was used longest ago (a Map keeps the order roots were kept in: see openRoot). */
function forgetOldest(): void {
  const [root, held] = keptRoots.entries().next().value as [string, KeptRoot];
  keptRoots.delete(root);
  closeSync(held.fd);
}

/** The real path the kernel gives an opened root; undefined where it cannot (past PATH_MAX: the walk says so). */
function realOf(fd: number): string | undefined {
  try {
    return readlinkSync(inFd(fd));
  } catch {
    return undefined;
  }
}

/** Why a root cannot be opened, with the fix, by the error the open got. */
function problemOf(code: string | undefined): string {
  // said of a root from --root and from config alike: the fix names no one place it came from
  if (code === "ENOENT") return "it does not exist; create it, or stop serving it as a root";
  if (code === "ENOTDIR") return "it is not a directory; serve a directory as a root";
  if (code === "EPERM")
    return "the operating system keeps it from the program that started the server; grant that program access to the folder (on macOS: Privacy & Security, Files and Folders)";
  return "it cannot be listed (its mode lets it be searched but not read); give it read permission, e.g. chmod u+r";
}

/**
 * Each root's real path, found once: it only says which spellings of an
 * absolute path fall under the root. What the walk opens is reached from the
 * root's descriptor, pinned by device and inode, and is confirmed by the real
 * path the kernel gives for it, whatever name the path was sent by.
 */
const realNames = new Map<string, string>();

/** A root by the name it was given and by its real path, so an absolute path may use either. */
function rootNames(root: string): string[] {
  let real = realNames.get(root);
  if (real === undefined) {
    try {
      real = realpathSync(root);
    } catch {
      return [root]; // not there (yet): asked again next time
    }
    realNames.set(root, real);
  }
  return real === root ? [root] : [root, real];
}
