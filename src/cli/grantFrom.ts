/**
 * policy.toml's grant_from: where a person has to be for a grant, a lifted
 * lock or an HTTP token to be issued. Unset, any shell issues them, piped
 * ones without asking (the documented scripting path, and the self-grant path
 * of an agent with a shell tool). "terminal" takes them only from a process
 * with a controlling terminal, and only once yes is typed on it: /dev/tty is
 * opened itself, since stdin may be a pipe an agent writes.
 */
import { RtaError } from "../core/errors.ts";
import type { Cli } from "./factory.ts";
import type { Asked } from "./grantFromOperator.ts";

/**
 * Asks the person under the team policy's grant_from, before `action` (say,
 * "issue it") is done: writes `what` (escaped by the caller: it may quote an
 * agent's bytes) on the controlling terminal and takes
 * y or yes typed there. Returns true when the person was asked and said yes,
 * false when the policy sets no grant_from (nobody was asked). Under
 * grant_from = "operator" it waits for `rta operator` instead
 * (grantFromOperator.ts). Refuses core.grant.noterminal with no terminal to
 * ask on, core.grant.declined for any other answer or a denial,
 * core.grant.nooperator when no operator answers, and core.policy.unreadable
 * when the policy does not read.
 */
export async function personSaysSo(cli: Cli, what: string, action: string, asked: Asked): Promise<boolean> {
  const from = cli.deps().policy.current().grantFrom;
  if (from === undefined) return false;
  if (from === "operator") {
    // the person who ran it sees what it would give while it waits, as the one approving it does
    cli.io.err(what.replace(/\n*$/, "\n"));
    const { operatorApproves } = await import("./grantFromOperator.ts");
    await operatorApproves(cli, `${what.replace(/\n*$/, "\n")}${action}?`, asked);
    return true;
  }
  await typedYes(cli, what, action);
  return true;
}

/**
 * Writes `what` on the controlling terminal and takes y or yes typed there
 * before `action`. Refuses core.grant.noterminal with no terminal to ask on
 * and core.grant.declined for any other answer.
 */
export async function typedYes(cli: Cli, what: string, action: string): Promise<void> {
  const tty = cli.io.controllingTerminal?.();
  if (tty === undefined)
    throw new RtaError(
      "core.grant.noterminal",
      "the team policy takes this only from a person at an interactive terminal, and this process has none",
      "a person must run it, in a terminal of their own; an agent cannot do it for itself",
    );
  let answer: string;
  try {
    tty.write(`${what.replace(/\n*$/, "\n")}${action}? type yes on this terminal [y/N] `);
    answer = tty.readLine().trim();
  } finally {
    tty.close();
  }
  if (!/^(y|yes)$/i.test(answer))
    throw new RtaError(
      "core.grant.declined",
      `nothing was done: the answer was not yes`,
      "answer y on the terminal to go ahead",
    );
}
