/**
 * A person's package actions: install a plugin's binary (copied, described
 * under the bounds, hashed), list what is installed and in what state,
 * remove one, and hash them all again. None of them is ever a tool. Each
 * refuses with an RtaError, and a refusal leaves the index as it was.
 */
import { randomBytes } from "node:crypto";
import { accessSync, chmodSync, constants, copyFileSync, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { RtaError } from "../core/errors.ts";
import { shellWord } from "../core/words.ts";
import { type Digest, fileDigest, rememberDigest } from "./digest.ts";
import { describePlugin } from "./host.ts";
import { checkDescribed, type Described } from "./protocol.ts";
import {
  type IndexEntry,
  makePluginsDir,
  PLUGIN_NAME,
  PLUGIN_PREFIX,
  pluginFile,
  readIndex,
  updateIndex,
} from "./registry.ts";

/** What an installed plugin is now: as installed, a binary that changed since, or one rta cannot offer (why). */
export type PluginState =
  | { state: "ok"; described: Described }
  | { state: "changed"; described: Described; sha256: string }
  | { state: "invalid"; described?: Described; reason: string };

/** One installed plugin as the index and its binary say now; `described` is its describe answer, checked. */
export type InstalledPlugin = { name: string; entry: IndexEntry; file: string } & PluginState;

/**
 * The plugin name a binary's file name gives: `rta-plugin-<name>`. Refuses
 * any other file name as core.input.invalid, saying what it must be.
 */
export function pluginNameOf(path: string): string {
  const file = basename(path);
  const name = file.startsWith(PLUGIN_PREFIX) ? file.slice(PLUGIN_PREFIX.length) : "";
  if (!PLUGIN_NAME.test(name))
    throw new RtaError(
      "core.input.invalid",
      `${JSON.stringify(file)} is not a plugin's name: a plugin is an executable named rta-plugin-<name>, <name> lowercase letters and digits`,
      "rename the binary, e.g. rta-plugin-note",
    );
  return name;
}

/** A plugin copied and described, waiting for the person's yes; `commit` installs it, `discard` forgets it. */
export interface PendingInstall {
  name: string;
  described: Described;
  sha256: string;
  /** the entry it replaces, when one by that name is installed */
  replaces?: IndexEntry;
  commit(now: Date): IndexEntry;
  discard(): void;
}

/**
 * Copies the binary at `path` beside the installed ones (mode 0700, under a
 * temporary name), hashes the copy, and runs its describe under the bounds.
 * Refuses: a name not `rta-plugin-<name>`, one in `taken` (the built-in and
 * never-a-tool areas), or a file that is no executable (core.input.invalid), a describe that fails the protocol
 * (core.plugin.invalid), a torn index (core.plugin.index). Nothing is
 * installed until `commit`.
 */
export async function prepareInstall(
  dataDir: string,
  path: string,
  taken: ReadonlySet<string> = new Set(),
): Promise<PendingInstall> {
  const name = pluginNameOf(path);
  if (taken.has(name))
    throw new RtaError(
      "core.input.invalid",
      `rta has an area or command named ${name} already: a plugin named so would not be offered`,
      "a plugin's name is the area of everything it declares: give it another",
    );
  checkExecutable(path);
  const index = readIndex(dataDir);
  const dir = makePluginsDir(dataDir);
  const temp = join(dir, `.${PLUGIN_PREFIX}${name}.${randomBytes(4).toString("hex")}.tmp`);
  try {
    copyFileSync(path, temp, constants.COPYFILE_EXCL);
    chmodSync(temp, 0o700);
    const digest = fileDigest(temp);
    const described = await describePlugin(temp, name, digest.sha256).catch((err: unknown) => {
      // nothing is installed yet, so there is nothing for doctor to show or pkg remove to take
      if (!(err instanceof RtaError) || err.code !== "core.plugin.invalid") throw err;
      throw new RtaError(
        err.code,
        err.message,
        "nothing was installed: a plugin answers describe as docs/plugins.md says; fix it and install it again",
      );
    });
    const final = pluginFile(dataDir, name);
    const replaces = index.plugins[name];
    return {
      name,
      described,
      sha256: digest.sha256,
      ...(replaces ? { replaces } : {}),
      commit: (now) => commitInstall(dataDir, { name, temp, final, digest, described, now }),
      discard: () => unlinkQuietly(temp),
    };
  } catch (err) {
    unlinkQuietly(temp);
    throw err;
  }
}

function checkExecutable(path: string): void {
  let ok = false;
  let file = true;
  try {
    const st = statSync(path);
    file = st.isFile();
    if (file) {
      accessSync(path, constants.X_OK);
      ok = (st.mode & 0o111) !== 0;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      throw new RtaError(
        "core.input.invalid",
        `no file is at ${JSON.stringify(path)}`,
        isAbsolute(path)
          ? "give the path of the plugin's binary"
          : `give the path of the plugin's binary: a relative one starts at the current directory, ${process.cwd()}`,
      );
  }
  if (!ok)
    throw new RtaError(
      "core.input.invalid",
      `${JSON.stringify(path)} is not an executable file`,
      // chmod makes no directory, fifo or device a program
      file
        ? `a plugin is a program rta runs: \`chmod +x ${shellWord(path)}\` if it is one`
        : "a plugin is a program rta runs: give the path of its binary, a regular file",
    );
}

interface Commit {
  name: string;
  temp: string;
  final: string;
  digest: Digest;
  described: Described;
  now: Date;
}

function commitInstall(dataDir: string, c: Commit): IndexEntry {
  try {
    // under the lock, the binary and its entry change together: an install refused while another rta holds the
    // lock leaves the installed binary as it was, and two at once cannot leave one's binary beside the other's entry
    return updateIndex(dataDir, (index) => {
      renameSync(c.temp, c.final);
      // the rename moved the copy's ctime: its identity is taken again, and its bytes must still be the ones described
      const digest = fileDigest(c.final);
      if (digest.sha256 !== c.digest.sha256) {
        unlinkQuietly(c.final);
        throw new RtaError(
          "core.plugin.invalid",
          `the copy of plugin ${c.name} changed while it was installed`,
          "install it again",
        );
      }
      const entry: IndexEntry = {
        version: c.described.version,
        sha256: digest.sha256,
        installed: c.now.toISOString().replace(/\.\d+Z$/, "Z"),
        described: c.described,
        identity: digest.identity,
      };
      index.plugins[c.name] = entry;
      return entry;
    });
  } finally {
    unlinkQuietly(c.temp);
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {}
}

/**
 * Every installed plugin, by name, with its state: `invalid` when its
 * describe answer no longer checks or its binary cannot be read, `changed`
 * when the binary no longer hashes to what was described (`rehash` reads
 * every byte again, whatever the cache says). Refuses a torn index
 * (core.plugin.index).
 */
export function installedPlugins(dataDir: string, rehash = false): InstalledPlugin[] {
  const index = readIndex(dataDir);
  return Object.keys(index.plugins)
    .sort()
    .map((name) => inspect(dataDir, name, index.plugins[name] as IndexEntry, rehash));
}

function inspect(dataDir: string, name: string, entry: IndexEntry, rehash: boolean): InstalledPlugin {
  const file = pluginFile(dataDir, name);
  const base = { name, entry, file };
  let described: Described;
  try {
    described = checkDescribed(entry.described, name);
  } catch (err) {
    return { ...base, state: "invalid", reason: (err as Error).message };
  }
  let now: Digest;
  try {
    if (!rehash && entry.identity !== undefined)
      rememberDigest(file, { sha256: entry.sha256, identity: entry.identity });
    now = fileDigest(file, rehash);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "its binary is missing" : `its binary cannot be read (${code ?? "error"})`;
    return { ...base, described, state: "invalid", reason };
  }
  if (now.sha256 !== entry.sha256) return { ...base, described, state: "changed", sha256: now.sha256 };
  return { ...base, described, state: "ok" };
}

/**
 * Removes an installed plugin: its binary and its entry in the index, under the index lock.
 * Refuses a name not installed (core.plugin.unknown) and a torn index.
 */
export function removePlugin(dataDir: string, name: string): IndexEntry {
  const known = PLUGIN_NAME.test(name) ? readIndex(dataDir).plugins[name] : undefined;
  if (known === undefined)
    throw new RtaError(
      "core.plugin.unknown",
      `no plugin named ${JSON.stringify(name)} is installed`,
      "run `rta pkg list` to see the installed plugins",
    );
  // under the lock, so an install of the same name that finished meanwhile keeps its binary
  return updateIndex(dataDir, (index) => {
    const was = index.plugins[name] ?? known;
    delete index.plugins[name];
    unlinkQuietly(pluginFile(dataDir, name));
    return was;
  });
}
