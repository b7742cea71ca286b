/**
 * Approves an upstream as a person would, piped with --yes, on the built
 * binary: a new upstream is withheld from agents until then.
 */
import { expect } from "bun:test";
import { rta } from "../support/rta.ts";

/** Runs `rta upstream approve NAME --yes` in `env`, expecting it to pass. */
export async function approveUpstream(env: Record<string, string>, name: string): Promise<void> {
  const approved = await rta(["upstream", "approve", name, "--yes"], { env });
  expect(approved.stderr + approved.stdout).toContain(name);
  expect(approved.code).toBe(0);
}
