/**
 * `rta lock [target] | lock list | lock lift`: the instant no. A lock stops
 * the calls it covers, free reads included, from the next call of a server
 * that is already running. Never a tool.
 */
import { optionalAgentName } from "../core/agentName.ts";
import { parseDuration } from "../core/duration.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { type Scalar, table } from "../core/result.ts";
import { relativeWords } from "../core/words.ts";
import type { Lock } from "../gate/gateStore.ts";
import type { Cli } from "./factory.ts";
import { issuer, resolveTarget } from "./grant.ts";
import { paint, wantsJson } from "./io.ts";
import { renderHuman } from "./render.ts";
import { reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

export function lock(
  cli: Cli,
  target: string | undefined,
  opts: { agent?: string; ttl?: string; json?: boolean },
): number {
  const { io } = cli;
  try {
    const agent = optionalAgentName(opts.agent);
    if (target !== undefined) resolveTarget(cli, target);
    const deps = cli.deps();
    const now = deps.clock.now();
    const l = deps.gate().lock({
      agent: agent ?? null,
      target: target ?? null,
      issued_at: now,
      expires_at: opts.ttl !== undefined ? now + parseDuration(opts.ttl) : null,
      issued_by: issuer(),
    });
    if (wantsJson(io, opts.json)) io.out(`${JSON.stringify(l)}\n`);
    else io.out(`locked ${l.id}: ${describeLock(l, now)}; lift it with \`rta lock lift ${l.id}\`\n`);
    return Exit.ok;
  } catch (err) {
    return reportError(
      io,
      err instanceof RtaError ? err : new RtaError("core.internal", "the lock could not be set"),
      opts.json === true,
    );
  }
}

function describeLock(l: Lock, now: number): string {
  const what = l.target ?? "every capability";
  const whom = l.agent ? `for agent ${l.agent}` : "for every agent";
  const until =
    l.expires_at === null
      ? "until lifted"
      : `until ${new Date(l.expires_at).toISOString()} (${relativeWords(l.expires_at / 1000, now / 1000)})`;
  return `${what} ${whom}, ${until}`;
}

function lockState(l: Lock, now: number): "active" | "lifted" | "expired" {
  if (l.lifted_at !== null) return "lifted";
  if (l.expires_at !== null && l.expires_at <= now) return "expired";
  return "active";
}

export function lockList(cli: Cli, opts: { json?: boolean }): number {
  const { io } = cli;
  const deps = cli.deps();
  const now = deps.clock.now();
  const locks = deps.gate().locks();
  if (wantsJson(io, opts.json)) {
    io.out(`${JSON.stringify({ locks: locks.map((l) => ({ ...l, state: lockState(l, now) })) })}\n`);
    return Exit.ok;
  }
  if (locks.length === 0) {
    io.out("no locks\n");
    return Exit.ok;
  }
  const rows: Scalar[][] = locks.map((l) => [
    l.id,
    l.target ?? "everything",
    l.agent ?? "every agent",
    l.expires_at === null ? "until lifted" : relativeWords(l.expires_at / 1000, now / 1000),
    lockState(l, now),
  ]);
  io.out(renderHuman(table(["id", "target", "agent", "expires", "state"], rows), paint(io)));
  return Exit.ok;
}

export function lift(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
): number {
  return endSelected(cli, id, opts, {
    noun: "lock",
    verb: "lifted",
    lister: "rta lock list",
    act: (d, by, now) => d.gate().lift(by, now),
  });
}
