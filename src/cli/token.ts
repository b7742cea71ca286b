/** `rta mcp token new | list | revoke`: the bearer tokens an HTTP server takes. Never tools. */
import { checkAgentName } from "../core/agentName.ts";
import { Exit } from "../core/errors.ts";
import { type ListedToken, listTokens, newToken, revokeTokens } from "../gate/operator/tokens.ts";
import type { Cli } from "./factory.ts";
import { personSaysSo } from "./grantFrom.ts";
import { jsonText, outputForm, paint } from "./io.ts";
import { isoTime, printListing, readerLeft, relativeTime, timeFor } from "./listing.ts";
import { shown } from "./render.ts";
import { refusalOf, reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

/**
 * Makes a token and prints it once: the token alone on stdout, piped (so
 * `TOKEN=$(rta mcp token new ...)` holds it) or on a terminal, where a note
 * on stderr says whose it is and until when; --json gives it with its id,
 * agent and expiry. Under the policy's grant_from, made only once a person says
 * yes (grantFrom.ts). Every other refusal is the gate's (gate/operator/tokens.ts), said here.
 */
export async function tokenNew(cli: Cli, opts: { agent: string; ttl?: string; json?: boolean }): Promise<number> {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const lasting = opts.ttl === undefined ? "" : ` for ${shown(opts.ttl)}`;
    const agent = checkAgentName(opts.agent);
    const what = `a bearer token for agent ${agent}${lasting}, for rta's HTTP server`;
    await personSaysSo(cli, what, "make it", { command: "rta mcp token new", agent, target: "token" });
    const { token, row } = newToken(deps, { agent: opts.agent, ttl: opts.ttl });
    const form = outputForm(io, opts.json);
    if (form === "json")
      io.out(jsonText(io, { token, id: row.id, agent: row.agent, expires_at: isoTime(row.expires_at) }));
    else {
      io.out(`${token}\n`);
      if (form === "plain") return Exit.ok; // piped, the token alone: a script holds it, nothing else is said
      const until = row.expires_at === null ? "until revoked" : `until ${isoTime(row.expires_at)}`;
      const when = row.expires_at === null ? "" : ` (${relativeTime(row.expires_at, row.issued_at)})`;
      io.err(
        `${paint(io).dim(`token ${row.id} for agent ${row.agent}, ${until}${when}; it is shown once, keep it somewhere safe`)}\n`,
      );
    }
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the token could not be made"), opts.json === true);
  }
}

/**
 * The tokens, never a token or its hash: a grid on a terminal with relative
 * expiry, a tab-separated row a token piped, `{"tokens": [...], "total": n}`
 * with --json; times absolute but on a terminal. Refuses nothing of its own.
 */
export function tokenList(cli: Cli, opts: { json?: boolean }): number {
  const deps = cli.deps();
  const { now, tokens } = listTokens(deps);
  printListing<ListedToken>(cli, opts.json, {
    key: "tokens",
    items: tokens,
    columns: [
      { name: "id", cell: (t) => t.id },
      { name: "agent", cell: (t) => t.agent },
      { name: "issued", cell: (t, form) => timeFor(form, t.issued_at, now, "-") },
      { name: "expires", cell: (t, form) => timeFor(form, t.expires_at, now, "never") },
      { name: "state", cell: (t) => t.state },
    ],
    json: (t) => ({
      ...t,
      issued_at: isoTime(t.issued_at),
      expires_at: isoTime(t.expires_at),
      revoked_at: isoTime(t.revoked_at),
    }),
    empty: "no tokens",
  });
  return Exit.ok;
}

/** Revokes the tokens chosen by id, --agent or --all, and says how many. */
export function tokenRevoke(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
): number {
  return endSelected(cli, id, opts, {
    noun: "token",
    verb: "revoked",
    lister: "rta mcp token list",
    act: (deps, by) => revokeTokens(deps, by),
  });
}
