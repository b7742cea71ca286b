/**
 * Where rta keeps its own files. env-paths gives the platform's places for an
 * app named `rta`; RTA_DATA_DIR and RTA_CONFIG_DIR override them (tests and
 * containers set these). Nothing here creates a directory: the store that
 * writes first makes it.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import envPaths from "env-paths";

export interface Dirs {
  /** grants, locks, the record, the kv store, installed plugins */
  data: string;
  /** config.toml and the team policy */
  config: string;
  /**
   * the age identity that opens the kv store: RTA_KV_IDENTITY's file; left out, identityFile's default; null for
   * none, as in a server started with neither RTA_KV_IDENTITY nor --kv
   */
  identity?: string | null;
}

/**
 * The age identity file that opens the kv store: the one RTA_KV_IDENTITY named, else `<config dir>/identity.txt`;
 * undefined where the process opens none (`identity` null: a server not told to).
 */
export function identityFile(d: Dirs): string | undefined {
  if (d.identity === null) return undefined;
  return d.identity ?? join(d.config, "identity.txt");
}

/** What a person's command line opens the kv store with: identityFile's, never none (only a server is without). */
export function personIdentityFile(d: Dirs): string {
  return identityFile(d) ?? join(d.config, "identity.txt");
}

/** The record file's name inside the data dir. */
export const RECORD_FILE = "agent-log.jsonl";

/**
 * rta's data and config dirs: RTA_DATA_DIR and RTA_CONFIG_DIR when set and not empty, else the platform's;
 * and the identity file RTA_KV_IDENTITY names, when it names one.
 */
export function dirs(env: Record<string, string | undefined> = process.env): Dirs {
  const paths = envPaths("rta", { suffix: "" });
  const found: Dirs = {
    data: resolve(nonEmpty(env.RTA_DATA_DIR) ?? paths.data),
    config: resolve(nonEmpty(env.RTA_CONFIG_DIR) ?? paths.config),
  };
  const identity = nonEmpty(env.RTA_KV_IDENTITY);
  if (identity !== undefined) found.identity = resolve(identity);
  return found;
}

/**
 * The platform's places for rta, whatever RTA_DATA_DIR and RTA_CONFIG_DIR
 * say: an rta started without them (the operator's own shell, where a
 * client's registration carries them) reads its config and keeps its record
 * there, so the path gate keeps agents out of them as well. On Linux, the
 * ones under the home too when XDG_CONFIG_HOME or XDG_DATA_HOME moves them:
 * a shell, cron or a service that does not set those uses the home's.
 */
export function platformDirs(platform = process.platform, home = homedir()): string[] {
  const paths = envPaths("rta", { suffix: "" });
  const found = [resolve(paths.data), resolve(paths.config)];
  if (platform === "linux" && isAbsolute(home)) found.push(join(home, ".local/share/rta"), join(home, ".config/rta"));
  return [...new Set(found)];
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
