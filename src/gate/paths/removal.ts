/**
 * A directory removed with all in it (fs.rm recursive), through the handle
 * the gate opened on its parent. The gate looked at the directory named, not
 * at what lies below it: a tree that holds something the gate keeps is
 * refused whole before anything in it is removed. Every level is opened
 * through its parent and no link is followed.
 */
import {
  closeSync,
  constants,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmdirSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import { RtaError } from "../../core/errors.ts";
import type { Pacer } from "../../core/pacer.ts";
import { inFd } from "./procFd.ts";
import { gitDirWithheld, type Keeper, pathError, withheld } from "./rules.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW } = constants;

/**
 * How many levels deep a removal goes. Each level holds a descriptor while
 * the removal is in it; a tree nested tens of thousands deep (made by moving
 * one deep tree into the bottom of another) would take every descriptor the
 * server may hold, and fail every other call meanwhile. No path names a
 * level past a few thousand anyway, and real trees stay far shallower.
 */
export const MAX_REMOVE_DEPTH = 512;

/**
 * Removes the directory `name` in the opened `parentFd` and everything in it.
 * A tree that holds something the gate keeps (one of rta's places reached by
 * a bind mount, a git dir where the gate guards them) is refused whole, as
 * `core.path.withheld`, before anything in it is removed; so is one nested
 * deeper than MAX_REMOVE_DEPTH, as `core.path.invalid`, and one holding a
 * directory the server cannot list, as `core.path.unreadable`, and one reaching
 * past what the kernel names, as `core.path.invalid`. So a first pass looks
 * and a second removes, looking again as it goes. Both give way through
 * `pacer`, and stop once the call is cancelled (what the second pass had
 * removed by then stays removed). Returns how many entries it removed.
 */
export async function removeTree(
  parentFd: number,
  name: string,
  sent: string,
  keeper: Keeper,
  pacer: Pacer,
): Promise<number> {
  await pacer.pause(); // a call cancelled as soon as it was sent removes nothing
  await throughTree(parentFd, name, 1, { sent, keeper, pacer, remove: false });
  return throughTree(parentFd, name, 1, { sent, keeper, pacer, remove: true });
}

interface RemovePass {
  sent: string;
  keeper: Keeper;
  pacer: Pacer;
  /** false for the pass that only looks */
  remove: boolean;
}

/** One pass of removeTree: counts what it would remove, and removes it when `remove`. */
async function throughTree(parentFd: number, name: string, depth: number, pass: RemovePass): Promise<number> {
  const { sent, keeper, pacer, remove } = pass;
  let removed = 0;
  let fd: number;
  try {
    fd = openSync(inFd(parentFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (err) {
    // a directory the server may not list: what it holds cannot be looked at, so none of the tree is removed
    if ((err as NodeJS.ErrnoException).code === "EACCES") throw shut(sent);
    // not a directory (any more): a file or a link, removed as itself
    if (remove) unlinkSync(inFd(parentFd, name));
    return 1;
  }
  try {
    if (withheld(keeper.rules, keeper.own(), realOf(fd, sent)) || gitDirWithheld(keeper.rules, fd)) {
      throw new RtaError(
        "core.path.withheld",
        `${JSON.stringify(sent)} holds something withheld from agents (one of rta's places, or a git dir), so none of it is removed`,
        "remove the files you mean inside it, by name",
      );
    }
    if (depth > MAX_REMOVE_DEPTH) {
      throw new RtaError(
        "core.path.invalid",
        `${JSON.stringify(sent)} holds directories nested more than ${MAX_REMOVE_DEPTH} deep, so none of it is removed`,
        "the person running rta can remove it",
      );
    }
    for (const { name: child, stat } of entriesOf(fd)) {
      if (pacer.due()) await pacer.pause();
      if (stat.isDirectory()) removed += await throughTree(fd, child, depth + 1, pass);
      else {
        if (remove) unlinkSync(inFd(fd, child));
        removed++;
      }
    }
  } finally {
    closeSync(fd);
  }
  if (remove) rmdirSync(inFd(parentFd, name));
  return removed + 1;
}

/** Where an opened level of the tree is; refuses one past what the kernel names (PATH_MAX), which cannot be asked about. */
function realOf(fd: number, sent: string): string {
  try {
    return readlinkSync(inFd(fd));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENAMETOOLONG") throw err;
    throw pathError(
      "invalid",
      sent,
      "reaches deeper than the system can name, so none of it is removed",
      "the person running rta can remove it",
    );
  }
}

/** The refusal of a tree that holds a directory the server cannot list. */
function shut(sent: string): RtaError {
  return pathError(
    "unreadable",
    sent,
    "holds a directory the server cannot list, so none of it is removed",
    "the person running rta can change its mode",
  );
}

/** The entries of an opened directory, each lstat'ed in place (links are not followed), sorted by name. */
function entriesOf(dirFd: number): { name: string; stat: Stats }[] {
  const out: { name: string; stat: Stats }[] = [];
  for (const name of readdirSync(inFd(dirFd)).sort()) {
    try {
      out.push({ name, stat: lstatSync(inFd(dirFd, name)) });
    } catch {
      // gone while we looked
    }
  }
  return out;
}
