/**
 * The path gate: the roots (roots.ts) with the rules of what is withheld
 * under them (rules.ts). It opens a path a call sent from its root, by the
 * walk in open.ts, and hands back a handle (handles.ts); a call's view of it
 * is stage.ts. See open.ts for how a path is opened and what is refused.
 */
import { closeSync, readlinkSync } from "node:fs";
import type { OpenOptions, PathIntent } from "../../core/access.ts";
import { confirmOpened, type Walk } from "./confirm.ts";
import { underGitDir } from "./gitDirs.ts";
import type { OpenedPath } from "./handles.ts";
import { watchMounts } from "./mounts.ts";
import { walk } from "./open.ts";
import { type OwnPlaces, wayTo } from "./ownPlaces.ts";
import { type LookedDir, PlacesMemo } from "./placesMemo.ts";
import { inFd } from "./procFd.ts";
import { lookedNow, type OpenedRoot, Roots } from "./roots.ts";
import { type GateRules, gitWithheld, type Keeper, pathError } from "./rules.ts";

/** PATH_MAX on Linux; a longer path is no path. */
const MAX_PATH_BYTES = 4096;

export class PathGate extends Roots implements Keeper {
  /** `roots` as Roots takes them; `rules` say what is withheld under them. */
  constructor(
    roots: string[],
    readonly rules: GateRules,
    pins?: Map<string, string>,
  ) {
    super(roots, pins);
    // a gate that keeps places watches the mount table from now on (placesMemo.ts)
    if (rules.withheld.length > 0) watchMounts();
  }

  /**
   * Opens `sent` under a root for `intent`. A relative path starts at the
   * first root; an absolute one must fall under one of them. The handle asks
   * `keeper` what it withholds as it is used (a call's view, which looks at
   * rta's places once); the caller closes it (see closeGated).
   */
  open(sent: string, intent: PathIntent, options: OpenOptions = {}, keeper: Keeper = this): OpenedPath {
    refuseMalformed(sent);
    const { root, parts } = this.pick(sent);
    const opened = this.openRoot(sent, root);
    let at: Walk;
    try {
      at = this.walkFrom(sent, intent, root, opened, keeper);
    } catch (err) {
      if (!opened.kept) closeSync(opened.fd);
      throw err;
    }
    return walk(at, opened, keeper, parts, options.makeParents === true);
  }

  /**
   * rta's own places and the way to them, as they stand now (worked out again only when they may have moved);
   * `looked`, directories this open just looked at by their paths, are not looked at again.
   */
  own(looked?: readonly LookedDir[]): OwnPlaces {
    return placesMemo(this.rules).now(looked);
  }

  /** What one open is about, from its opened root, which must itself be one the rules let this open start at. */
  private walkFrom(sent: string, intent: PathIntent, root: string, opened: OpenedRoot, keeper: Keeper): Walk {
    const { fd: rootFd, st } = opened;
    // a kept root's real path was read when it was opened, and holds while a look finds it unchanged (roots.ts)
    const rootReal = opened.real ?? readlinkSync(inFd(rootFd));
    let aboveRoot: boolean | undefined;
    let rootWay: string[] | undefined;
    const at: Walk = {
      sent,
      intent,
      root,
      rootReal,
      rules: this.rules,
      own: keeper.own(lookedNow(opened)),
      rootWay: () => {
        rootWay ??= this.roots.flatMap(wayTo);
        return rootWay;
      },
      rootInGit: () => {
        // asked by the root's real path: a kept root's is read again first, as for a root not kept (a read of a
        // `config` under a root whose ancestor was moved into a git dir was let through on the kept path)
        if (aboveRoot === undefined) at.rootMoved?.();
        aboveRoot ??= underGitDir(at.rootReal);
        return aboveRoot;
      },
    };
    if (opened.real !== undefined) {
      at.rootMoved = () => {
        const moved = rootMoved(at, opened);
        if (moved) aboveRoot = undefined;
        return moved;
      };
      // a write asks by the root's real path whether it lies in a git dir: read again, as for a root not kept
      if (intent === "write") at.rootMoved();
    }
    confirmOpened(at, rootFd, st, at.rootReal, opened.facts);
    at.plainDev = st.dev;
    if (intent === "write" && this.rules.git && at.rootInGit()) throw gitWithheld(sent);
    return at;
  }
}

/**
 * Whether a kept root's real path is not the one kept with it: an ancestor renamed, with a link made where it was,
 * leaves the root's own look unchanged. The new path is then kept, and the root confirmed again under it.
 */
function rootMoved(at: Walk, opened: OpenedRoot): boolean {
  const now = readlinkSync(inFd(opened.fd));
  if (now === at.rootReal) return false;
  at.rootReal = now;
  opened.real = now;
  opened.facts = {};
  confirmOpened(at, opened.fd, opened.st, now, opened.facts);
  return true;
}

/** One working-out of rta's places per set of rules, shared by the gates made from one (see withRoots). */
const memos = new WeakMap<GateRules, PlacesMemo>();

function placesMemo(rules: GateRules): PlacesMemo {
  let memo = memos.get(rules);
  if (memo === undefined) {
    memo = new PlacesMemo(rules.withheld, rules.system);
    memos.set(rules, memo);
  }
  return memo;
}

/** A path no file system takes: a NUL byte in it, or longer than PATH_MAX. */
function refuseMalformed(sent: string): void {
  if (sent.includes("\0"))
    throw pathError("invalid", sent.replaceAll("\0", "\\0"), "holds a NUL byte", "send the path without it");
  // a UTF-16 unit is at most 3 bytes of UTF-8: a short path is not measured
  if (sent.length * 3 > MAX_PATH_BYTES && Buffer.byteLength(sent) > MAX_PATH_BYTES)
    throw pathError(
      "invalid",
      `${sent.slice(0, 40)}...`,
      `is longer than ${MAX_PATH_BYTES} bytes`,
      "send a shorter path",
    );
}
