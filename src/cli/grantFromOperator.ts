/**
 * grant_from = "operator": a grant, a lock lift or a token asked for from a
 * shell waits until a person approves it in `rta operator`, through
 * askOperator (src/operator/ask.ts): one pending question on a channel of its
 * own until it is answered, denied, or the policy's consent_timeout runs out.
 */
import { RtaError } from "../core/errors.ts";
import { CONSENT_TIMEOUT_MS } from "../gate/policy.ts";
import { askOperator } from "../operator/ask.ts";
import { runDirOf } from "../operator/runDir.ts";
import type { Cli } from "./factory.ts";

/** What is asked: the command, the agent it is for, and what it would give. */
export interface Asked {
  /** "rta grant allow", "rta lock lift", "rta mcp token new" */
  command: string;
  agent: string;
  /** the capability or area a grant names; "lock" or "token" */
  target: string;
}

/**
 * Waits for `rta operator` to approve `what`, saying on stderr which id to
 * approve. Refuses core.grant.declined when it is denied, and
 * core.grant.nooperator when no channel can be opened or no answer comes in
 * the policy's consent_timeout; core.operator.unsafe when the run dir is not private.
 */
export async function operatorApproves(cli: Cli, what: string, asked: Asked): Promise<void> {
  const { io } = cli;
  const deps = cli.deps();
  const answer = await askOperator({
    runDir: runDirOf(io.env, deps.dirs.data),
    deps,
    catalogue: cli.catalogue,
    prompt: {
      kind: "grant",
      capability: asked.target,
      tool: asked.command,
      agent: asked.agent,
      description: asked.command,
      args: {},
      message: what.trimEnd(),
      timeoutMs: deps.policy.current().consentTimeout ?? CONSENT_TIMEOUT_MS,
    },
    signal: new AbortController().signal,
    onPending: (id) =>
      io.err(`waiting for a person to approve it in \`rta operator\` (or \`rta operator approve ${id}\`)\n`),
  });
  if (answer === "accept") return;
  if (answer === "timeout")
    throw new RtaError(
      "core.grant.nooperator",
      "no one approved it in `rta operator` in time, so nothing was done",
      "a person must approve it in `rta operator`; run it again while they watch",
    );
  throw new RtaError("core.grant.declined", "a person denied it in `rta operator`, so nothing was done");
}
