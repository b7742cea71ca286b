/**
 * The installed plugins a process offers, beside the built-ins. A plugin is
 * offered from the description the index keeps while its binary hashes to
 * the sha256 recorded beside it; a binary that changed since is described
 * again first, and offered as what it says now, pinned to its new digest (so
 * no grant issued for the old one covers it). A plugin that cannot be
 * offered (its description does not check, its binary is missing, its name
 * is a built-in area) is left out with the reason, which `rta doctor` and
 * `rta pkg list` show; it never stops the built-ins being served.
 */
import type { Capability } from "../core/capability.ts";
import { type Catalogue, NEVER_A_TOOL, namesTaken } from "../core/catalogue.ts";
import { pluginCapabilities, pluginValidators } from "./capabilities.ts";
import { describePlugin, PluginHosts } from "./host.ts";
import { installedPlugins } from "./packages.ts";
import type { Described } from "./protocol.ts";
import { INDEX_FIX } from "./registry.ts";

export { PluginHosts };

/** A plugin as a process found it: offered (its description and the digest it stands on) or left out (why). */
export type LoadedPlugin =
  | {
      name: string;
      offered: true;
      described: Described;
      sha256: string;
      file: string;
      changed: boolean;
      /** for a binary that changed and was not run to describe it again: the digest it has now (`sha256` is the installed one's) */
      changedTo?: string;
    }
  | {
      name: string;
      offered: false;
      reason: string;
      /** what mends it, where that is not installing the plugin again (a torn index) */
      fix?: string;
    };

/**
 * Reads the installed plugins under `dataDir`, describing again each whose
 * binary changed; where `describeChanged` is false (for all, or for that
 * plugin's name), a changed binary is not run:
 * it is offered as it was installed, on the installed digest, so a call of
 * it is refused (core.plugin.invalid) and a grant on it too
 * (core.plugin.changed). Never throws: a torn index leaves every plugin out,
 * said as one entry named by the index. A changed binary `known` has
 * already described (a server loading again after `rta pkg`) is not run again.
 */
export async function loadPlugins(
  dataDir: string,
  describeChanged: boolean | ((name: string) => boolean) = true,
  known: readonly LoadedPlugin[] = [],
): Promise<LoadedPlugin[]> {
  const describes = typeof describeChanged === "function" ? describeChanged : () => describeChanged;
  let installed: ReturnType<typeof installedPlugins>;
  try {
    installed = installedPlugins(dataDir);
  } catch (err) {
    return [{ name: "(index)", offered: false, reason: (err as Error).message, fix: INDEX_FIX }];
  }
  // each changed binary is described at once beside the others: one that never answers costs its 10 s once, not
  // 10 s for every plugin described after it
  const found = installed.map(async (p): Promise<LoadedPlugin> => {
    if (p.state === "invalid") return { name: p.name, offered: false, reason: p.reason };
    // as installed: unchanged, or changed and not run to describe it again (then pinned to the installed digest)
    if (p.state === "ok" || !describes(p.name))
      return {
        name: p.name,
        offered: true,
        described: p.described,
        sha256: p.entry.sha256,
        file: p.file,
        changed: p.state === "changed",
        ...(p.state === "changed" ? { changedTo: p.sha256 } : {}),
      };
    const was = known.find((k) => k.name === p.name && k.offered && k.sha256 === p.sha256 && k.file === p.file);
    if (was?.offered && was.changedTo === undefined) return was;
    try {
      const described = await describePlugin(p.file, p.name, p.sha256);
      return { name: p.name, offered: true, described, sha256: p.sha256, file: p.file, changed: true };
    } catch (err) {
      return {
        name: p.name,
        offered: false,
        reason: `it changed since it was installed, and ${(err as Error).message}`,
      };
    }
  });
  return Promise.all(found);
}

/**
 * The catalogue `base` with every offered plugin's capabilities added. A
 * plugin whose name is an area of `base`, a never-a-tool area or one of rta's commands, or whose
 * capabilities do not load, is left out and turned into a left-out entry in
 * `loaded` (so doctor says why). Refuses nothing.
 */
export function withPlugins(base: Catalogue, loaded: LoadedPlugin[], hosts: () => PluginHosts): Catalogue {
  if (!loaded.some((p) => p.offered)) return base;
  const taken = namesTaken(base);
  const added: Capability[] = [];
  for (const [i, p] of loaded.entries()) {
    if (!p.offered) continue;
    if (taken.has(p.name)) {
      loaded[i] = {
        name: p.name,
        offered: false,
        reason: `its name is an area or command rta has already (${p.name})`,
      };
      continue;
    }
    try {
      const ref = { name: p.name, version: p.described.version, digest: p.sha256, file: p.file };
      const caps = pluginCapabilities(p.described, ref, hosts());
      // a capability rta never offers as a tool stays out, whoever declares it
      const never = caps.find((c) => (NEVER_A_TOOL.verbs as readonly string[]).includes(c.name));
      if (never) throw new Error(`it declares ${never.name}, which is never a tool`);
      added.push(...caps);
      taken.add(p.name);
    } catch (err) {
      loaded[i] = { name: p.name, offered: false, reason: (err as Error).message };
    }
  }
  return added.length === 0 ? base : base.with(added, pluginValidators(added));
}
