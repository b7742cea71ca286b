/**
 * `rta lock [target] | lock list | lock lift`: the instant no. A lock stops
 * the calls it covers, free reads included, from the next call of a server
 * that is already running. Never a tool.
 */
import { Exit } from "../core/errors.ts";
import type { Deps } from "../gate/deps.ts";
import type { Lock } from "../gate/gateStore.ts";
import { lift as liftLocks, listLocks, lock as setLock } from "../gate/operator/locks.ts";
import { type Selection, selection } from "../gate/operator/selection.ts";
import type { Cli } from "./factory.ts";
import { personSaysSo } from "./grantFrom.ts";
import { jsonText, outputForm } from "./io.ts";
import { isoTime, printListing, readerLeft, relativeTime, timeFor } from "./listing.ts";
import { shown } from "./render.ts";
import { refusalOf, reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

/**
 * Sets the lock asked for and prints it: a sentence on a terminal, its id
 * alone piped (what `rta lock lift` takes), the lock with --json. Every
 * refusal is the gate's (gate/operator/locks.ts), said here.
 */
export async function lock(
  cli: Cli,
  target: string | undefined,
  opts: { agent?: string; ttl?: string; json?: boolean },
): Promise<number> {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const { lock: l, now } = setLock(deps, cli.catalogue, { target, agent: opts.agent, ttl: opts.ttl });
    // the running servers are told at once: a lock on everything cancels the agent's calls under way and ends its
    // HTTP sessions (src/operator/); a server no one can reach still stops the next call
    const { tellServers } = await import("../operator/client.ts");
    const { runDirOf } = await import("../operator/runDir.ts");
    await tellServers(runDirOf(io.env, deps.dirs.data), {
      op: "changed",
      what: "lock",
      ...(l.agent ? { agent: l.agent } : {}),
    });
    const form = outputForm(io, opts.json);
    if (form === "json") io.out(jsonText(io, lockJson(l)));
    else if (form === "plain") io.out(`${l.id}\n`);
    else io.out(`locked ${l.id}: ${describeLock(l, now)}; lift it with \`rta lock lift ${l.id}\`\n`);
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the lock could not be set"), opts.json === true);
  }
}

/** What a lock stops, for whom and until when, as words. */
function describeLock(l: Lock, now: number): string {
  const what = l.target === null ? "every capability" : shown(l.target);
  const whom = l.agent ? `for agent ${shown(l.agent)}` : "for every agent";
  const until =
    l.expires_at === null ? "until lifted" : `until ${isoTime(l.expires_at)} (${relativeTime(l.expires_at, now)})`;
  return `${what} ${whom}, ${until}`;
}

/** A lock as --json gives it: its row, times in ISO. */
function lockJson(l: Lock & { state?: string }): Record<string, unknown> {
  return { ...l, issued_at: isoTime(l.issued_at), expires_at: isoTime(l.expires_at), lifted_at: isoTime(l.lifted_at) };
}

/**
 * The locks: a grid on a terminal, a tab-separated row a lock piped,
 * `{"locks": [...], "total": n}` with --json. Refuses nothing of its own.
 */
export function lockList(cli: Cli, opts: { json?: boolean }): number {
  const deps = cli.deps();
  const { now, locks } = listLocks(deps);
  printListing(cli, opts.json, {
    key: "locks",
    items: locks,
    columns: [
      { name: "id", cell: (l) => l.id },
      { name: "target", cell: (l) => l.target ?? "everything" },
      { name: "agent", cell: (l) => l.agent ?? "every agent" },
      { name: "expires", cell: (l, form) => timeFor(form, l.expires_at, now, "until lifted") },
      { name: "state", cell: (l) => l.state },
    ],
    json: lockJson,
    empty: "no locks",
  });
  return Exit.ok;
}

/**
 * Lifts the locks chosen by id, --agent or --all, and says how many. Under the
 * policy's grant_from, only once a person says so (grantFrom.ts): an agent must
 * not free itself. A bad choice is refused before anyone is asked.
 */
export async function lift(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
): Promise<number> {
  try {
    const by = selection(id, opts, "lock");
    const which =
      "id" in by ? `lock ${shown(by.id)}` : "agent" in by ? `every lock of agent ${by.agent}` : "every lock";
    const agent = "agent" in by ? by.agent : "any";
    // nothing to lift is said as endSelected says it, without asking a person first
    const live = listLocks(cli.deps()).locks.filter((l) => l.state === "active");
    const chosen = live.filter((l) => ("id" in by ? l.id === by.id : "agent" in by ? l.agent === by.agent : true));
    if (chosen.length === 0) return endSelected(cli, id, opts, lifting);
    await personSaysSo(cli, `lifting ${which}`, "lift it", { command: "rta lock lift", agent, target: "lock" });
  } catch (err) {
    return reportError(cli.io, refusalOf(cli.io, err, "the locks could not be lifted"), opts.json === true);
  }
  return endSelected(cli, id, opts, lifting);
}

const lifting = {
  noun: "lock",
  verb: "lifted",
  lister: "rta lock list",
  act: (deps: Deps, by: Selection) => liftLocks(deps, by),
};
