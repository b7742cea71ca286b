/**
 * What a capability is handed to touch the world, as interfaces only. The
 * gate implements them (gate/paths, gate/net) and keeps every rule: what is
 * withheld, which links may be followed, which addresses an agent may reach.
 * A capability asks through these and never sees a grant, an origin or a
 * root list, so a capability that runs outside the binary (a plugin, an
 * upstream) needs nothing more than this file says.
 */
import type { Stats } from "node:fs";

export type PathIntent = "read" | "write";

export interface OpenOptions {
  /** for a write: make the missing directories above the last name, each inside the one before */
  makeParents?: boolean;
}

/** A path opened for reading: a descriptor on the file or directory itself. */
export interface ReadHandle {
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
export interface WriteHandle {
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

export type GatedPath = ReadHandle | WriteHandle;
