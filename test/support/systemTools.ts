/**
 * Whether a system tool a capability runs is installed, looked for where rta
 * looks (the fixed PATH of src/gate/spawn.ts, not the test's own): a test of
 * a system tool runs it where it is, and asserts net.tool.missing where not.
 */
import { TOOL_PATH } from "../../src/gate/spawn.ts";

/** True when any of `names` is an executable in the dirs rta runs tools from. */
export function installed(...names: string[]): boolean {
  return names.some((name) => Bun.which(name, { PATH: TOOL_PATH }) !== null);
}
