/** Running rta as nobody, for a file mode to bite: the tests run as root, whom modes do not stop. */
import { chmodSync, copyFileSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./fixtures.ts";
import { RTA } from "./rta.ts";

/** nobody's uid and gid. */
export const NOBODY = 65534;

/** Runs what follows it as nobody, with no supplementary groups: the command and its arguments go after it. */
export const AS_NOBODY = ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"];

/** A fresh directory (its real path, mode 0755) holding `rta`, a copy of the built binary that nobody may run. */
export function nobodyBase(): { base: string; bin: string } {
  const base = realpathSync(tempDir());
  chmodSync(base, 0o755);
  const bin = join(base, "rta");
  copyFileSync(RTA, bin);
  chmodSync(bin, 0o755);
  return { base, bin };
}
