/**
 * The binary starts with JavaScriptCore's tier-up thresholds scaled up
 * (scripts/build.ts): code that runs only while a command line is built or a
 * server starts stays in the interpreter instead of keeping a second core busy
 * compiling it. Once the start is over, the normal policy holds.
 */
let settled = false;

/** JavaScriptCore's normal tier-up policy from now on; the first call does it, later calls do nothing. */
export function settleJit(): void {
  if (settled) return;
  settled = true;
  Bun.unsafe.setJITPolicy(1);
}
