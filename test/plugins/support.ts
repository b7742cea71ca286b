/** What the plugin tests share: the fixture plugins, described and made into capabilities as a server would. */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { Capability, PluginRef } from "../../src/core/capability.ts";
import { pluginCapabilities } from "../../src/plugins/capabilities.ts";
import { fileDigest } from "../../src/plugins/digest.ts";
import { describePlugin, type PluginHosts } from "../../src/plugins/host.ts";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "plugins");

/** The fixture plugin `name`'s file. */
export function fixture(name: string): string {
  return join(FIXTURES, `rta-plugin-${name}`);
}

/** A fixture as a server holds it once installed: its ref (digest of the file) and its capabilities. */
export async function loaded(name: string, hosts: PluginHosts, file = fixture(name)): Promise<Capability[]> {
  const d = await describePlugin(file, name);
  const ref: PluginRef = {
    name,
    version: d.version,
    digest: fileDigest(file).sha256,
    file,
  };
  return pluginCapabilities(d, ref, hosts);
}

/**
 * The pids of processes running `file` (a path, or the part of one such as
 * `rta-plugin-demo`): whose command line names it, or names the descriptor rta
 * runs it from (`/proc/<rta>/fd/<n>`, as `sh` is handed a shell plugin).
 */
export function running(file: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^[0-9]+$/.test(n))) {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (args.some((a) => a.includes(file) || (/^\/proc\/\d+\/fd\/\d+$/.test(a) && leadsTo(a).includes(file))))
        out.push(Number(pid));
    } catch {
      // gone
    }
  }
  return out;
}

function leadsTo(link: string): string {
  try {
    return readlinkSync(link);
  } catch {
    return "";
  }
}
