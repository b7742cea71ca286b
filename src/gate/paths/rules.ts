/**
 * What the path gate withholds, said once: rta's own places, other rta data
 * dirs and the kernel's trees (withheld), files with more than one hard link
 * (the hard-link rule), and git dirs, never written and their credential
 * files never read (the git rules). The walk (open.ts, confirm.ts) and the
 * handles (handles.ts) ask here, so a capability never repeats a rule. Also
 * the refusals they share: each a core.path.* code whose message names the
 * path as the agent sent it and nothing of rta's own layout.
 */
import { fstatSync, type Stats } from "node:fs";
import { resolve } from "node:path";
import { RtaError } from "../../core/errors.ts";
import { canCarryGitSecret, isGitDir, isGitSecretFile } from "./gitDirs.ts";
import { isMountRoot } from "./look.ts";
import { isDataDirShaped, isInside, isKernelFs, isPlace, isPlaceAt, type OwnPlaces } from "./ownPlaces.ts";
import type { LookedDir } from "./placesMemo.ts";
import { inFd } from "./procFd.ts";

export interface GateRules {
  /**
   * rta's own places as configured (data dir, config dir, identity file, and
   * git's config beside a home): withheld wherever they resolve when a path
   * is opened, with the way to them
   */
  withheld: string[];
  /** a regular file with more than one hard link may be opened */
  hardlinks: boolean;
  /** git dirs (.git, and any dir holding what a git dir holds) are not written, nor their credential files read */
  git: boolean;
  /** the kernel's own trees (/proc, /sys) are withheld */
  system: boolean;
}

/**
 * What the gate asked of a root's descriptor: whether it is on a kernel file system, and holds an rta data dir's
 * marks; or of a file just opened, whether it is a mount's root (asked with its fstat, in the same statx).
 */
export interface RootFacts {
  kernelFs?: boolean;
  dataDirShaped?: boolean;
  mountRoot?: boolean;
}

/** What a handle asks of the gate that opened it: its rules, and rta's places as they stood for this call. */
export interface Keeper {
  readonly rules: GateRules;
  /** rta's places as they stand now; `looked`, directories this open just looked at by their paths (placesMemo.ts) */
  own(looked?: readonly LookedDir[]): OwnPlaces;
}

/**
 * The rules for agents: rta's own places withheld (its data and config dirs,
 * and the identity file RTA_KV_IDENTITY names, when it does), and `also`
 * guarded the same way (git's config beside a home); the kernel's trees too,
 * no hard links, git dirs guarded. The places are kept as given and looked up
 * each time a path is opened, since they may not exist yet. Refuses nothing.
 */
export function agentRules(
  dirs: { data: string; config: string; identity?: string | null; also?: readonly string[] },
  hardlinks = false,
): GateRules {
  const places = [dirs.data, dirs.config, ...(dirs.identity ? [dirs.identity] : []), ...(dirs.also ?? [])];
  return { withheld: [...new Set(places.map((p) => resolve(p)))], hardlinks, git: true, system: true };
}

/**
 * The rules of a person's own calls: nothing withheld, hard links read, git
 * dirs written like any other (a search still passes git's credential files
 * by: see walkedFileWithheld).
 */
export const PERSON_RULES: GateRules = { withheld: [], hardlinks: true, git: false, system: false };

/**
 * rta's temporary files that hold a secret, by their names wherever they lie: the dir `rta kv edit` hands the editor
 * the store's plaintext in (in /dev/shm or the temp dir) and a temporary identity `rta keys new|import` writes beside
 * the identity, named so (leftovers.ts) that a killed rta's are found and removed. An editor that keeps its swap file
 * elsewhere names it by the edited file's path with `%` for `/` (Neovim's `%dev%shm%rta-kv-edit-…%kv.txt.swp`), and
 * that copy of the plaintext is withheld too.
 */
const SECRET_TEMP = /(?:^|[/%])(?:rta-kv-edit-\d+-[A-Za-z0-9]{6}(?:[/%]|$)|\.rta-keys-\d+-\d+\.tmp(?:\/|$))/;

/**
 * Whether a real path is one the gate withholds, the one list of it: one of
 * rta's places or inside one, rta's temporary files of a secret (SECRET_TEMP),
 * another rta data dir, or the kernel's own trees. With `fd`, what was opened there is asked by its descriptor (what
 * the walk to a path confirms), `st` being its fstat when already known,
 * and `notKernel` when its file system is known to be no kernel's;
 * without, by the path (an entry a walk under an opened directory comes to).
 * `facts` keeps what the descriptor's file system and entries were found to
 * be, for a kept root's descriptor (roots.ts says while they hold).
 * Refuses nothing itself.
 */
export function withheld(
  rules: GateRules,
  own: OwnPlaces,
  real: string,
  fd?: number,
  st?: Stats,
  notKernel = false,
  facts: RootFacts = {},
): boolean {
  if (secretTempWithheld(rules, real)) return true;
  const at = fd === undefined ? real : inFd(fd);
  const opened = fd === undefined ? undefined : (st ?? fstatSync(fd));
  if (isInside(real, own) || (opened === undefined ? isPlaceAt(real, own) : isPlace(opened, own))) return true;
  if (fd !== undefined && opened !== undefined && fileMountWithheld(rules, own, fd, opened, facts.mountRoot))
    return true;
  if (rules.system && !notKernel) {
    facts.kernelFs ??= isKernelFs(at);
    if (facts.kernelFs) return true;
  }
  // only a directory holds files: what fstat says is no directory is asked nothing more
  if (!keepsStores(rules) || (opened !== undefined && !opened.isDirectory())) return false;
  facts.dataDirShaped ??= isDataDirShaped(at);
  return facts.dataDirShaped;
}

/**
 * A file (not a directory) mounted onto a name of its own, from the file system one of rta's places is on, where
 * rta's stores are kept: the kernel names it by the name it was mounted on, so neither its real path nor a place's
 * identity says where it lies, and a bind mount of record.key or gate.db into a root would be read as any file
 * there. Withheld, as the safe way to be wrong; a file mounted from elsewhere (a container's /etc/hosts) is read.
 */
function fileMountWithheld(
  rules: GateRules,
  own: OwnPlaces,
  fd: number,
  opened: Pick<Stats, "isDirectory" | "dev">,
  mountRoot?: boolean,
) {
  if (!keepsStores(rules) || opened.isDirectory() || !(mountRoot ?? isMountRoot(fd))) return false;
  const dev = `${opened.dev}:`;
  for (const id of own.ids) if (id.startsWith(dev)) return true;
  return false;
}

/** Whether `path` is, or lies in, one of rta's temporary files of a secret (SECRET_TEMP), for a gate that keeps rta's stores; made yet or not. */
export function secretTempWithheld(rules: GateRules, path: string): boolean {
  return keepsStores(rules) && SECRET_TEMP.test(path);
}

/** Whether rta's stores are kept from this gate's callers (an agent's); a person's gate keeps nothing. */
export function keepsStores(rules: GateRules): boolean {
  return rules.withheld.length > 0;
}

/** The hard-link rule: a regular file with more than one link could be a file outside the root. */
export function hardlinkWithheld(rules: GateRules, st: Pick<Stats, "isFile" | "nlink">): boolean {
  return st.isFile() && st.nlink > 1 && !rules.hardlinks;
}

/**
 * The git rule for a read, on the walk to a path: a file that can carry git
 * credentials, by its name in the directory the walk is in. `inGitDir` is
 * asked only for those names.
 */
export function gitSecretWithheld(
  rules: GateRules,
  parent: string | undefined,
  name: string,
  inGitDir: () => boolean,
): boolean {
  return rules.git && canCarryGitSecret(parent, name, inGitDir);
}

/** The git rule for a write: an opened directory that is a git dir, of any name, where the gate guards them. */
export function gitDirWithheld(rules: GateRules, dirFd: number): boolean {
  return rules.git && isGitDir(inFd(dirFd));
}

/**
 * The same rules for a file a walk came to, opened as `fd` in the directory
 * `dirFd`, by its real path and what fstat says: withheld, a hard link where they are
 * kept, or a git secret. A search passes git's credential files by for a
 * person too, who reads one only by naming it. Refuses nothing itself.
 */
export function walkedFileWithheld(
  rules: GateRules,
  own: OwnPlaces,
  dirFd: number,
  fd: number,
  real: string,
  st: Stats,
): boolean {
  return (
    withheld(rules, own, real) ||
    fileMountWithheld(rules, own, fd, st) ||
    hardlinkWithheld(rules, st) ||
    isGitSecretFile(inFd(dirFd), real)
  );
}

/** A path refused: the code names why, the message names the path as the agent sent it and nothing of rta's layout. */
export function pathError(
  c: "outside" | "symlink" | "hardlink" | "withheld" | "unreadable" | "invalid",
  sent: string,
  message: string,
  hint: string,
): RtaError {
  return new RtaError(`core.path.${c}`, `${JSON.stringify(sent)} ${message}`, hint);
}

export const ROOT_HINT = "name something inside it";

export const OUTSIDE_HINT =
  "paths are confined to the roots the server was started with; ask the person running rta to add a root";

/** The refusal of a path that leads to one of rta's places, for a write, move or removal. */
export function placeWithheld(sent: string): RtaError {
  return pathError(
    "withheld",
    sent,
    "is withheld from agents, or holds or leads to something that is",
    "it is not a place an agent's call may write, move or remove",
  );
}

/** The refusal of a write in a git dir, or one that would make one. */
export function gitWithheld(sent: string): RtaError {
  return pathError(
    "withheld",
    sent,
    "is in a git directory, or would make one, which is never written",
    "work on the files of the repository, not its internals",
  );
}

/** The refusal of a read of a file that can carry git credentials. */
export function gitSecretRefused(sent: string): RtaError {
  return pathError(
    "withheld",
    sent,
    "can carry credentials, so it is not read",
    "read the repository's files, not its credential stores",
  );
}

/** The refusal of a file with more than one hard link, where they are kept. */
export function hardlinkRefused(sent: string): RtaError {
  return pathError(
    "hardlink",
    sent,
    "is a file with more than one hard link, which could be a file outside the root",
    "the person running rta can allow hard links in config (paths.hardlinks = true)",
  );
}

/** The refusal of something the server may not read (its mode). */
export function unreadable(sent: string): RtaError {
  return pathError("unreadable", sent, "cannot be read by the server", "the person running rta can change its mode");
}

/** The refusal of a path whose last step was swapped while it was opened. */
export function changed(sent: string): RtaError {
  return pathError("symlink", sent, "changed while it was opened", "try again");
}

/** What a failed lookup of a name on the way says, by its error; undefined for an error that is no refusal. */
export function lookupRefused(code: string | undefined, sent: string): RtaError | undefined {
  if (code === "ENOENT" || code === "ENOTDIR") return notFound(sent);
  if (code === "ENAMETOOLONG")
    return pathError("invalid", sent, "has a name longer than the file system allows", "send a shorter name");
  if (code === "EACCES") return unreadable(sent);
  return undefined;
}

/** Nothing at the path: `fs.notfound`, as a capability's own absence is said. */
export function notFound(sent: string): RtaError {
  return new RtaError("fs.notfound", `${JSON.stringify(sent)} does not exist`, "fs.list shows what is there");
}
