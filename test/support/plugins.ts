/**
 * Installing a plugin into a test's data dir. `installPlugin` does it as a
 * person would: `rta pkg install PATH --yes` on the built binary. The note
 * plugin is large (a compiled Bun binary), so `installNote` installs it that
 * way once per test process, then gives each data dir a hard link to that
 * copy and the same index entry, with the identity the link has now: the
 * bytes are the ones installed, and no test pays a copy or a hash.
 */
import { afterAll, beforeAll } from "bun:test";
import { existsSync, linkSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { Catalogue } from "../../src/core/catalogue.ts";
import { agentLimits } from "../../src/gate/bound.ts";
import { identityOf } from "../../src/plugins/digest.ts";
import { loadPlugins, PluginHosts, withPlugins } from "../../src/plugins/load.ts";
import { pluginFile, pluginsDir, readIndex, writeIndex } from "../../src/plugins/registry.ts";
import { tempDir } from "./fixtures.ts";
import { beforeDataDir, RTA } from "./rta.ts";

/** The Python fixture plugin `memo` (memo.put, a write; memo.get, a read), for the package and pinning tests. */
export const MEMO_PLUGIN = join(import.meta.dir, "..", "fixtures", "pkg", "rta-plugin-memo");

/** The note plugin as `npm run build` makes it. */
export const NOTE_PLUGIN = join(import.meta.dir, "..", "..", "dist", "plugins", "rta-plugin-note");

/** Installs the plugin at `path` into `dataDir` with the built binary; throws with its stderr when it is refused. */
export async function installPlugin(path: string, dataDir: string, env: Record<string, string> = {}): Promise<void> {
  // spawned here, not through rta(): its hooks may be the ones installing this very plugin
  const proc = Bun.spawn([RTA, "pkg", "install", path, "--yes"], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: tempDir(), RTA_CONFIG_DIR: tempDir(), ...env, RTA_DATA_DIR: dataDir },
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`rta pkg install ${path} failed: ${stderr}`);
}

let installedOnce: string | undefined;

/**
 * For a test file that used note when it was built in, called at its top:
 * every data dir the built binary runs in during its tests (rta(), connect(), onTerminal()) has the
 * note plugin installed first, as `rta pkg install` leaves it.
 */
export function useNotePlugin(): void {
  // for this file's tests only: another file's data dirs stay as that file makes them
  beforeAll(() => {
    if (!beforeDataDir.includes(installNoteOnce)) beforeDataDir.push(installNoteOnce);
  });
  afterAll(() => {
    const at = beforeDataDir.indexOf(installNoteOnce);
    if (at >= 0) beforeDataDir.splice(at, 1);
  });
}

async function installNoteOnce(dataDir: string): Promise<void> {
  if (existsSync(pluginFile(dataDir, "note"))) return;
  await installNote(dataDir);
}

/** Installs the note plugin into `dataDir` (made when missing) and returns it; throws when dist/plugins lacks it. */
export async function installNote(dataDir: string = tempDir()): Promise<string> {
  if (installedOnce === undefined) {
    const first = tempDir();
    await installPlugin(NOTE_PLUGIN, first);
    installedOnce = first;
  }
  const entry = readIndex(installedOnce).plugins.note;
  if (entry === undefined) throw new Error("the note plugin did not install");
  mkdirSync(pluginsDir(dataDir), { recursive: true, mode: 0o700 });
  const file = pluginFile(dataDir, "note");
  linkSync(pluginFile(installedOnce, "note"), file);
  const index = readIndex(dataDir);
  index.plugins.note = { ...entry, identity: identityOf(statSync(file, { bigint: true })) };
  writeIndex(dataDir, index);
  return dataDir;
}

let catalogueMade: Promise<Catalogue> | undefined;

/**
 * The built-ins and the note plugin, installed (installNote) in a data dir of
 * its own, as a process that has run `rta pkg install` makes its catalogue:
 * for the in-process tests that used note when it was built in. Made once per
 * test process; its plugin children end with it.
 */
export function noteCatalogue(): Promise<Catalogue> {
  catalogueMade ??= (async () => {
    const loaded = await loadPlugins(await installNote());
    const hosts = new PluginHosts({ maxResult: agentLimits().hard });
    return withPlugins(builtinCatalogue(), loaded, () => hosts);
  })();
  return catalogueMade;
}
