/**
 * What a capability is handed to touch the world, as interfaces only. The
 * gate implements them (gate/paths, gate/net) and keeps every rule: what is
 * withheld, which links may be followed, which addresses an agent may reach.
 * A capability asks through these and never sees a grant, an origin or a
 * root list, so a capability that runs outside the binary (a plugin, an
 * upstream) needs nothing more than this file says.
 *
 * A path handle is opened by the gate before the run and closed after it.
 * Its methods work on what was opened, never on a path string: a capability
 * cannot name a place the gate did not look at, and never has to ask whether
 * something is withheld, a hard link, or a git secret: what is, is left out
 * or refused by the handle itself, with the gate's own code.
 */
import type { Stats } from "node:fs";
import type { Pacer } from "./pacer.ts";

export type PathIntent = "read" | "write";

export interface OpenOptions {
  /** for a write: make the missing directories above the last name, each inside the one before */
  makeParents?: boolean;
}

/** Bytes of an opened file, read where they are. */
export interface FileBytes {
  /** up to `length` bytes from `offset`; fewer at the end of the file */
  read(offset: number, length: number): Buffer;
}

/** A file a walk came to, opened for reading; its opener closes it. */
export interface OpenedFile extends FileBytes {
  close(): void;
}

/** The file a write handle names as it is now, opened again for reading; its size as opened. */
export interface ExistingFile extends OpenedFile {
  size: number;
}

/** A path opened for reading: the file or directory itself. */
export interface ReadHandle extends FileBytes {
  readonly intent: "read";
  /** the path as the caller sent it */
  readonly sent: string;
  /** where it is, relative to its root ("" for the root itself) */
  readonly rel: string;
  /** what was opened, as opened */
  readonly stat: Stats;
  /** the root it was opened under, as configured */
  readonly root: string;
  /** the same, as a directory to list or walk; undefined when it is not a directory */
  dir(): DirHandle | undefined;
}

/** One entry of a directory, looked at in place (a link is not followed). */
export interface DirEntry {
  name: string;
  stat: Stats;
}

/** An entry a walk came to, in the directory it is in. */
export interface WalkEntry extends DirEntry {
  /** relative to the directory the walk started in */
  rel: string;
  depth: number;
  /**
   * The entry opened for reading, for a walk that reads what it finds (a
   * search): undefined for what the caller may not read (withheld, a hard
   * link where they are kept, a git secret) or what cannot be opened. Only
   * while the visitor runs; the caller closes it.
   */
  openFile(): OpenedFile | undefined;
}

/** An opened directory, with what the gate withholds already left out. */
export interface DirHandle {
  /** every name in it, sorted, not looked at: cheap to count past what is shown */
  names(): string[];
  /** the entry of that name, looked at; undefined when it is gone or withheld */
  entry(name: string): DirEntry | undefined;
  /**
   * Visits everything under it, depth first in name order, to `maxDepth` (1:
   * its own entries). Links are reported, never followed; withheld
   * directories are passed by. The visitor returns false to stop. The walk
   * gives way through `pacer` and throws `core.call.cancelled` once the call
   * is cancelled.
   */
  walk(
    maxDepth: number,
    pacer: Pacer,
    visit: (e: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
  ): Promise<void>;
}

/**
 * A path to write: the directory the name lives in is open, and the name may
 * not exist yet. Every change lands on that name in that directory, and one
 * that would make a git dir where the gate guards them is taken back and refused.
 */
export interface WriteHandle {
  readonly intent: "write";
  readonly sent: string;
  readonly rel: string;
  /** the last name of the path */
  readonly name: string;
  /** what is there now, not followed if it is a link; null when nothing is */
  readonly existing: Stats | null;
  readonly root: string;
  /** Replaces (or creates) the name with `data`, whole or not at all; a link at the name is replaced, never written through. */
  replace(data: Uint8Array, mode: number): void;
  /** The file at the name, opened again; refuses `core.path.symlink` when it is no longer the regular file the gate saw. */
  openExisting(): ExistingFile;
  /** Makes a directory at the name; the OS error (EEXIST) passes through. */
  mkdir(): void;
  /** Removes what is at the name: a file or link, or an empty directory; the OS error (ENOTEMPTY) passes through. */
  remove(): void;
  /**
   * Removes the directory at the name and all in it, never following a link;
   * refuses whole, before removing anything, a tree that holds what the gate
   * keeps (`core.path.withheld`) or one nested too deep (`core.path.invalid`).
   * Returns how many entries it removed.
   */
  removeTree(pacer: Pacer): Promise<number>;
  /** Moves what is at this name to `to`'s name; the OS error (EINVAL, ENOTDIR, EXDEV) passes through. */
  moveTo(to: WriteHandle): void;
}

export type GatedPath = ReadHandle | WriteHandle;
