/**
 * Areas that were built into rta and are plugins now (note): a person who
 * upgraded and calls one, asks for its card or has its data in the data dir
 * is told to install the plugin, with the path where the build put it.
 */
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Catalogue } from "./catalogue.ts";
import { shellWord } from "./words.ts";

/** area: the plugin's file name and the data dir's directory its area kept before */
const MOVED: Record<string, { file: string; kept: string }> = { note: { file: "rta-plugin-note", kept: "notes" } };

/** The hint for `area` when it moved out of rta and its plugin is not installed; undefined otherwise. */
export function movedHint(catalogue: Catalogue, area: string): string | undefined {
  const moved = MOVED[area];
  if (moved === undefined || catalogue.areas().includes(area)) return undefined;
  // `npm run build` puts it beside the binary, in dist/plugins
  const beside = join(dirname(process.execPath), "plugins", moved.file);
  const built = existsSync(beside);
  const path = built ? shellWord(beside) : `PATH/${moved.file}`;
  const where = built ? "" : ` (\`npm run build\` makes it in dist/plugins)`;
  return `${area} is a plugin now, no longer built in: install it with \`rta pkg install ${path}\`${where}`;
}

/** For `rta doctor`: each moved area whose data the data dir still keeps with no plugin to read it. */
export function movedData(catalogue: Catalogue, dataDir: string): { area: string; dir: string; fix: string }[] {
  const out: { area: string; dir: string; fix: string }[] = [];
  for (const [area, moved] of Object.entries(MOVED)) {
    const dir = join(dataDir, moved.kept);
    const hint = movedHint(catalogue, area);
    if (hint === undefined) continue;
    let entries: string[] = [];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    if (entries.length > 0) out.push({ area, dir, fix: hint });
  }
  return out;
}
