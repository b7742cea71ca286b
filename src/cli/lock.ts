/**
 * `rta lock [target] | lock list | lock lift`: the instant no. A lock stops
 * the calls it covers, free reads included, from the next call of a server
 * that is already running. Never a tool.
 */
import { Exit, RtaError } from "../core/errors.ts";
import { type Scalar, table } from "../core/result.ts";
import { relativeWords } from "../core/words.ts";
import type { Lock } from "../gate/gateStore.ts";
import { lift as liftLocks, listLocks, lock as setLock } from "../gate/operator/locks.ts";
import type { Cli } from "./factory.ts";
import { paint, wantsJson } from "./io.ts";
import { renderHuman } from "./render.ts";
import { reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

/** Sets the lock asked for and prints it; every refusal is the gate's (gate/operator/locks.ts), said here. */
export function lock(
  cli: Cli,
  target: string | undefined,
  opts: { agent?: string; ttl?: string; json?: boolean },
): number {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const { lock: l, now } = setLock(deps, cli.catalogue, { target, agent: opts.agent, ttl: opts.ttl });
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

/** What a lock stops, for whom and until when, as words. */
function describeLock(l: Lock, now: number): string {
  const what = l.target ?? "every capability";
  const whom = l.agent ? `for agent ${l.agent}` : "for every agent";
  const until =
    l.expires_at === null
      ? "until lifted"
      : `until ${new Date(l.expires_at).toISOString()} (${relativeWords(l.expires_at / 1000, now / 1000)})`;
  return `${what} ${whom}, ${until}`;
}

/** The locks as a table (or JSON); refuses nothing of its own. */
export function lockList(cli: Cli, opts: { json?: boolean }): number {
  const { io } = cli;
  const deps = cli.deps();
  const { now, locks } = listLocks(deps);
  if (wantsJson(io, opts.json)) {
    io.out(`${JSON.stringify({ locks })}\n`);
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
    l.state,
  ]);
  io.out(renderHuman(table(["id", "target", "agent", "expires", "state"], rows), paint(io)));
  return Exit.ok;
}

/** Lifts the locks chosen by id, --agent or --all, and says how many. */
export function lift(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
): number {
  return endSelected(cli, id, opts, {
    noun: "lock",
    verb: "lifted",
    lister: "rta lock list",
    act: (deps, by) => liftLocks(deps, by),
  });
}
