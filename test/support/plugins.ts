/** Installing a plugin into a test's data dir, as a person would: `rta pkg install PATH --yes` on the built binary. */
import { join } from "node:path";
import { rta } from "./rta.ts";

/** The Python fixture plugin `memo` (memo.put, a write; memo.get, a read), for the package and pinning tests. */
export const MEMO_PLUGIN = join(import.meta.dir, "..", "fixtures", "pkg", "rta-plugin-memo");

/** Installs the plugin at `path` into `dataDir` with the built binary; throws with its stderr when it is refused. */
export async function installPlugin(path: string, dataDir: string, env: Record<string, string> = {}): Promise<void> {
  const ran = await rta(["pkg", "install", path, "--yes"], { env: { RTA_DATA_DIR: dataDir, ...env } });
  if (ran.code !== 0) throw new Error(`rta pkg install ${path} failed: ${ran.stderr}`);
}
