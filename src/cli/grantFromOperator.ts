/**
 * grant_from = "operator": a grant, a lock lift or a token asked for from a
 * shell waits until a person approves it in `rta operator`. The waiting
 * process opens an operator channel of its own (src/operator/), as a server
 * does, and holds one pending question there until it is answered, denied,
 * or its time (the policy's consent_timeout) runs out.
 */
import { randomBytes } from "node:crypto";
import { RtaError } from "../core/errors.ts";
import { CONSENT_TIMEOUT_MS } from "../gate/policy.ts";
import { OperatorChannel } from "../operator/channel.ts";
import { runDirOf } from "../operator/runDir.ts";
import { ServerState } from "../operator/state.ts";
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
 * the policy's consent_timeout.
 */
export async function operatorApproves(cli: Cli, what: string, asked: Asked): Promise<void> {
  const { io } = cli;
  const deps = cli.deps();
  const session = randomBytes(4).toString("hex");
  const started = new Date(deps.clock.now()).toISOString();
  const state = new ServerState(
    { server: session, pid: process.pid, transport: "shell", agent: asked.agent, started },
    deps,
    cli.catalogue,
  );
  const channel = await OperatorChannel.open({
    session,
    runDir: runDirOf(io.env, deps.dirs.data),
    say: (line) => io.err(`${line}\n`),
    state,
  });
  if (channel === undefined)
    throw new RtaError(
      "core.grant.nooperator",
      "the team policy takes this only once `rta operator` approves it, and no operator channel could be opened",
      "a person must run it where rta's data dir is theirs (`rta doctor` says more)",
    );
  const told = state.broadcast;
  state.broadcast = (event) => {
    if (event.event === "consent_pending")
      io.err(`waiting for a person to approve it in \`rta operator\` (or \`rta operator approve ${event.id}\`)\n`);
    told(event);
  };
  const timeoutMs = deps.policy.current().consentTimeout ?? CONSENT_TIMEOUT_MS;
  let answer: Awaited<ReturnType<ServerState["ask"]>>;
  try {
    answer = await state.ask(
      {
        kind: "grant",
        capability: asked.target,
        tool: asked.command,
        agent: asked.agent,
        description: asked.command,
        args: {},
        message: what.trimEnd(),
        timeoutMs,
      },
      new AbortController().signal,
    );
    // the answer settles inside the channel's handling of the request: its reply is sent once that returns, so the
    // channel is closed a turn later, not under it
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    channel.close();
  }
  if (answer === "accept") return;
  if (answer === "timeout")
    throw new RtaError(
      "core.grant.nooperator",
      "no one approved it in `rta operator` in time, so nothing was done",
      "a person must approve it in `rta operator`; run it again while they watch",
    );
  throw new RtaError("core.grant.declined", "a person denied it in `rta operator`, so nothing was done");
}
