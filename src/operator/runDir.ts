/**
 * Where the operator channel's sockets are: `$XDG_RUNTIME_DIR/rta/`, else
 * `<data dir>/run/` (always the data dir's when RTA_DATA_DIR names one, so a
 * server of another data dir is never mixed in), mode 0700. A dir that is a
 * link, is not ours or is open to anyone else is refused, never used; a
 * socket left by a server that died is removed, only when it is ours.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { RtaError } from "../core/errors.ts";
import { connect } from "../core/lazyNet.ts";

/** The dir the sockets are in, for this environment and data dir. Refuses nothing. */
export function runDirOf(env: Record<string, string | undefined>, dataDir: string): string {
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime?.startsWith("/") && !env.RTA_DATA_DIR) return join(runtime, "rta");
  return join(dataDir, "run");
}

/** This process's uid, or undefined where there is none to compare. */
function myUid(): number | undefined {
  return typeof process.getuid === "function" ? process.getuid() : undefined;
}

/**
 * Checks that `dir` is a directory of ours, mode 0700 or narrower, not a
 * link. Refuses with core.operator.unsafe, saying what is wrong.
 */
export function checkRunDir(dir: string): void {
  const st = lstatSync(dir);
  const bad = (why: string) =>
    new RtaError(
      "core.operator.unsafe",
      `the operator channel's dir ${dir} ${why}`,
      "remove it, or make it a directory of this user with mode 0700",
    );
  if (!st.isDirectory()) throw bad(st.isSymbolicLink() ? "is a link" : "is not a directory");
  const uid = myUid();
  if (uid !== undefined && st.uid !== uid) throw bad(`belongs to uid ${st.uid}, not to this user (${uid})`);
  if ((st.mode & 0o077) !== 0) throw bad(`has mode ${(st.mode & 0o777).toString(8)}, wider than 700`);
}

/**
 * Makes the dir (0700, and its parents as needed) when it is not there, then
 * checks it (checkRunDir). Refuses with core.operator.unsafe.
 */
export function ensureRunDir(dir: string): string {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // a dir made just now under a umask that took bits off is still ours to set
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST")
      throw new RtaError(
        "core.operator.unsafe",
        `the operator channel's dir ${dir} cannot be made: ${(err as Error).message}`,
        "check the data dir",
      );
  }
  checkRunDir(dir);
  return dir;
}

/** The socket files in `dir` (`<session>.sock`), each a full path; none when the dir is not there. Refuses nothing. */
export function socketFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => /^[0-9a-f]{8}\.sock$/.test(n))
      .sort()
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/**
 * Removes the socket at `path` when no server listens on it any more (a
 * connect is refused) and it is a socket of ours. Resolves true when it was
 * removed. Refuses nothing.
 */
export async function removeIfStale(path: string): Promise<boolean> {
  const alive = await new Promise<boolean>((resolve) => {
    const s = connect(path);
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", (err: NodeJS.ErrnoException) => resolve(err.code !== "ECONNREFUSED" && err.code !== "ENOENT"));
  });
  if (alive) return false;
  try {
    const st = lstatSync(path);
    if (!st.isSocket() || (myUid() !== undefined && st.uid !== myUid())) return false;
    unlinkSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Sets a socket file's mode to 0600 (the dir is 0700 already). Refuses nothing. */
export function privateSocket(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch {
    // the dir keeps everyone else out
  }
}
