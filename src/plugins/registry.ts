/**
 * The installed plugins: `<data dir>/plugins/`, mode 0700, holding each
 * binary as `rta-plugin-<name>` (a copy, mode 0700) and `index.json`, which
 * says for each what was described when it was installed and the sha256 of
 * the binary that described it. The index is written whole or not at all (a
 * temporary file, synced, renamed, the directory synced), so a reader sees
 * the old index or the new one. An index that does not read as one (torn by
 * hand, or another program's) is refused, never taken as empty: taking it as
 * empty would drop what the person installed without a word.
 */

import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import { RtaError } from "../core/errors.ts";
import { releaseFileLock, tryFileLock } from "../core/fileLock.ts";
import { syncDir } from "../core/syncDir.ts";

/** A plugin's name: the area prefix of everything it declares. */
export const PLUGIN_NAME = /^[a-z][a-z0-9]*$/;

/** The prefix every plugin binary's file name starts with. */
export const PLUGIN_PREFIX = "rta-plugin-";

export const INDEX_VERSION = 1;

/** One installed plugin as the index holds it. */
export interface IndexEntry {
  /** the version its describe gave */
  version: string;
  /** sha256 hex of the binary that gave `described` */
  sha256: string;
  /** when it was installed, ISO 8601 */
  installed: string;
  /** its describe answer as it was given; checked again (checkDescribed) wherever it is used */
  described: unknown;
  /** the binary's identity when it was hashed (digest.ts), so a new process need not hash it again */
  identity?: string;
}

export interface PluginIndex {
  version: typeof INDEX_VERSION;
  plugins: Record<string, IndexEntry>;
}

/** Where installed plugins are kept under a data dir; refuses nothing. */
export function pluginsDir(dataDir: string): string {
  return join(dataDir, "plugins");
}

/** The installed binary of plugin `name`; refuses nothing (the name is checked where it is typed). */
export function pluginFile(dataDir: string, name: string): string {
  return join(pluginsDir(dataDir), `${PLUGIN_PREFIX}${name}`);
}

const INDEX_FILE = "index.json";

/**
 * The index under `dataDir`: empty when there is none yet. Refuses an index
 * that is not one (torn, not JSON, another version, a malformed entry) as
 * core.plugin.index, and one it cannot read as the system says.
 */
export function readIndex(dataDir: string): PluginIndex {
  let fd: number;
  try {
    // never through a link, and never waiting on a FIFO put in its place: every command reads it
    fd = openSync(
      join(pluginsDir(dataDir), INDEX_FILE),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { version: INDEX_VERSION, plugins: {} };
    if (code === "ELOOP") throw foreign("it is a link");
    throw err;
  }
  let text: string;
  try {
    if (!fstatSync(fd).isFile()) throw foreign("it is not a file");
    text = readFileSync(fd, "utf8");
  } finally {
    closeSync(fd);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw foreign("it is not JSON (cut short, or edited by hand)");
  }
  return checkIndex(value);
}

function checkIndex(value: unknown): PluginIndex {
  if (!isObject(value)) throw foreign("it is not a JSON object");
  if (value.version !== INDEX_VERSION) throw foreign(`its version is ${JSON.stringify(value.version)}, not 1`);
  if (!isObject(value.plugins)) throw foreign("it has no plugins object");
  for (const [name, entry] of Object.entries(value.plugins)) {
    if (!PLUGIN_NAME.test(name)) throw foreign(`it names a plugin ${JSON.stringify(name)}`);
    const ok =
      isObject(entry) &&
      typeof entry.version === "string" &&
      typeof entry.sha256 === "string" &&
      /^[0-9a-f]{64}$/.test(entry.sha256) &&
      typeof entry.installed === "string" &&
      "described" in entry &&
      (entry.identity === undefined || typeof entry.identity === "string");
    if (!ok) throw foreign(`its entry for ${name} is malformed`);
  }
  return value as unknown as PluginIndex;
}

/** What mends an index that does not read: said by the refusal, and by `rta doctor`. */
export const INDEX_FIX =
  "move the plugins directory of rta's data dir aside and install the plugins again with `rta pkg install PATH`";

function foreign(why: string): RtaError {
  return new RtaError("core.plugin.index", `the index of installed plugins does not read as rta's: ${why}`, INDEX_FIX);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Makes the plugins directory (mode 0700) when it is missing and returns it;
 * refuses what the system refuses.
 */
export function makePluginsDir(dataDir: string): string {
  const dir = pluginsDir(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * Writes the index whole or not at all: a temporary file beside it, synced,
 * renamed over it, then the directory synced. Refuses what the system
 * refuses (a full disk), leaving the old index as it was.
 */
export function writeIndex(dataDir: string, index: PluginIndex): void {
  const dir = makePluginsDir(dataDir);
  const temp = join(dir, `.${INDEX_FILE}.${randomBytes(4).toString("hex")}.tmp`);
  const data = Buffer.from(`${JSON.stringify(index, null, 2)}\n`);
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, join(dir, INDEX_FILE));
  } catch (err) {
    try {
      closeSync(fd);
    } catch {}
    try {
      unlinkSync(temp);
    } catch {}
    throw err;
  }
  syncDir(dir);
}

const LOCK_FILE = "index.lock";
/** How long a change waits for another rta's change of the index to end before it refuses. */
const LOCK_WAIT_MS = 10_000;

/**
 * Reads the index, lets `change` change it, and writes it, holding
 * `index.lock` (made exclusively, naming this process) throughout, so two
 * installs at once do not lose one another's entry. A lock whose process is
 * gone is taken over. Refuses what readIndex refuses, and core.plugin.index
 * when another live rta holds the lock past the wait.
 */
export function updateIndex<T>(dataDir: string, change: (index: PluginIndex) => T): T {
  const lock = join(makePluginsDir(dataDir), LOCK_FILE);
  const until = Date.now() + LOCK_WAIT_MS;
  while (!tryFileLock(lock)) {
    if (Date.now() > until)
      throw new RtaError(
        "core.plugin.index",
        "another rta is changing the installed plugins",
        "wait for it to finish, then run the command again",
      );
    Bun.sleepSync(20);
  }
  try {
    const index = readIndex(dataDir);
    const out = change(index);
    writeIndex(dataDir, index);
    return out;
  } finally {
    releaseFileLock(lock);
  }
}
