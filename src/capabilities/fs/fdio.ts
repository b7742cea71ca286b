/**
 * File work on descriptors the path gate opened. Nothing here opens a path
 * string from the root again: a directory's entries are looked up through
 * `/proc/self/fd/<fd>/<name>` with O_NOFOLLOW, so a walk never follows a link
 * and never leaves the directory it was handed.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  readSync,
  renameSync,
  rmdirSync,
  type Stats,
  unlinkSync,
  writeSync,
} from "node:fs";
import type { PathAccess } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";
import type { Pacer } from "../../core/pacer.ts";
import { isGitDir, isGitSecretFile } from "../../gate/gitDirs.ts";
import { inFd } from "../../gate/procFd.ts";

const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK, O_WRONLY, O_CREAT, O_EXCL } = constants;

export type EntryType = "file" | "dir" | "link" | "other";

export function typeOf(st: Stats): EntryType {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "dir";
  if (st.isSymbolicLink()) return "link";
  return "other";
}

/** Permission bits as `ls` shows them: 0o755 -> "rwxr-xr-x". */
export function modeString(mode: number): string {
  const bits = "rwxrwxrwx";
  let out = "";
  for (let i = 0; i < 9; i++) out += mode & (1 << (8 - i)) ? bits[i] : "-";
  return out;
}

export interface Entry {
  name: string;
  stat: Stats;
}

/** The entries of an opened directory, each lstat'ed in place (links are not followed), sorted by name. */
export function entriesOf(dirFd: number): Entry[] {
  const out: Entry[] = [];
  for (const name of readdirSync(inFd(dirFd)).sort()) {
    try {
      out.push({ name, stat: lstatSync(inFd(dirFd, name)) });
    } catch {
      // gone while we looked
    }
  }
  return out;
}

/** Reads up to `length` bytes from `offset`; fewer at the end of the file. */
export function readRange(fd: number, offset: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, offset + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** A NUL byte in the first 8 KiB is what git and grep take as binary. */
export function looksBinary(sample: Buffer): boolean {
  return sample.subarray(0, 8192).includes(0);
}

/**
 * Opens a child of an opened directory for a walk: a directory without
 * following a link, and only where it is not withheld. Returns undefined for
 * what the walk should pass by.
 */
export function openChild(dirFd: number, name: string, dir: boolean, gate: PathAccess): number | undefined {
  let fd: number;
  try {
    fd = openSync(inFd(dirFd, name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | (dir ? O_DIRECTORY : 0));
  } catch {
    return undefined;
  }
  try {
    const real = readlinkSync(inFd(fd));
    const st = fstatSync(fd);
    if (
      gate.isWithheld(real) ||
      (!dir && st.isFile() && st.nlink > 1 && !gate.hardlinks) ||
      (!dir && isGitSecretFile(inFd(dirFd), real))
    ) {
      closeSync(fd);
      return undefined;
    }
  } catch {
    closeSync(fd);
    return undefined;
  }
  return fd;
}

export interface WalkEntry {
  /** relative to the directory the walk started in */
  rel: string;
  name: string;
  stat: Stats;
  depth: number;
  /** the directory it is in, open while the visitor runs */
  dirFd: number;
}

/**
 * Visits everything under an opened directory, depth first in name order, to
 * `maxDepth` (1: its own entries). Links are reported, never followed; rta's
 * own dirs are passed by. The visitor returns false to stop the walk. A tree
 * can hold millions of entries: the walk gives way through `pacer` as it goes,
 * and throws `core.call.cancelled` once the call is cancelled.
 */
export async function walk(
  dirFd: number,
  gate: PathAccess,
  maxDepth: number,
  pacer: Pacer,
  visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
): Promise<void> {
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
      if (stat.isDirectory()) {
        const child = openChild(fd, name, true, gate);
        if (child === undefined) continue; // withheld, or not ours to list
        try {
          if ((await visit({ rel, name, stat, depth, dirFd: fd })) === false) return false;
          if (depth < maxDepth && !(await go(child, rel, depth + 1))) return false;
        } finally {
          closeSync(child);
        }
      } else if ((await visit({ rel, name, stat, depth, dirFd: fd })) === false) return false;
    }
    return true;
  };
  await pacer.pause(); // a call cancelled as soon as it was sent stops here
  await go(dirFd, "", 1);
}

/**
 * Replaces (or creates) `name` in an opened directory with `data`, whole or
 * not at all: a temporary file in the same directory, synced, then renamed
 * over the name. A link at the name is replaced, never written through.
 */
export function atomicWrite(parentFd: number, name: string, data: Uint8Array, mode = 0o644): void {
  // a name is at most 255 bytes: the temporary one keeps a prefix of it short enough, counted in bytes
  const temp = `.${Buffer.from(name).subarray(0, 200).toString("utf8")}.rta-${randomBytes(4).toString("hex")}.tmp`;
  const fd = openSync(inFd(parentFd, temp), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(inFd(parentFd, temp));
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(inFd(parentFd, temp), inFd(parentFd, name));
  } catch (err) {
    unlinkSync(inFd(parentFd, temp));
    throw err;
  }
}

/**
 * How many levels deep a removal goes. Each level holds a descriptor while
 * the removal is in it; a tree nested tens of thousands deep (made by moving
 * one deep tree into the bottom of another) would take every descriptor the
 * server may hold, and fail every other call meanwhile. No path names a
 * level past a few thousand anyway, and real trees stay far shallower.
 */
export const MAX_REMOVE_DEPTH = 512;

/**
 * Removes a directory and everything in it, opening each level through its
 * parent and never following a link. The gate has looked at the directory
 * named, not at what lies below it: a tree that holds something the gate
 * keeps (one of rta's places reached by a bind mount, a git dir where the
 * gate guards them) is refused whole, as `core.path.withheld`, before
 * anything in it is removed; so is one nested deeper than MAX_REMOVE_DEPTH,
 * as `core.path.invalid`. So a first pass looks and a second removes,
 * looking again as it goes. Both give way through `pacer`, and stop once the
 * call is cancelled (what the second pass had removed by then stays removed).
 */
export async function removeTree(
  parentFd: number,
  name: string,
  sent: string,
  gate: PathAccess,
  pacer: Pacer,
): Promise<number> {
  await pacer.pause(); // a call cancelled as soon as it was sent removes nothing
  await throughTree(parentFd, name, 1, { sent, gate, pacer, remove: false });
  return throughTree(parentFd, name, 1, { sent, gate, pacer, remove: true });
}

interface RemovePass {
  sent: string;
  gate: PathAccess;
  pacer: Pacer;
  /** false for the pass that only looks */
  remove: boolean;
}

/** One pass of removeTree: counts what it would remove, and removes it when `remove`. */
async function throughTree(parentFd: number, name: string, depth: number, pass: RemovePass): Promise<number> {
  const { sent, gate, pacer, remove } = pass;
  let removed = 0;
  let fd: number;
  try {
    fd = openSync(inFd(parentFd, name), O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch {
    // not a directory (any more): a file or a link, removed as itself
    if (remove) unlinkSync(inFd(parentFd, name));
    return 1;
  }
  try {
    if (gate.isWithheld(readlinkSync(inFd(fd))) || (gate.git && isGitDir(inFd(fd)))) {
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

export function notFile(sent: string): RtaError {
  return new RtaError("fs.notfile", `${JSON.stringify(sent)} is not a regular file`, "fs.stat says what it is");
}

export function notDir(sent: string): RtaError {
  return new RtaError("fs.notdir", `${JSON.stringify(sent)} is not a directory`, "fs.stat says what it is");
}
