/** `rta mcp token new | list | revoke`: the bearer tokens an HTTP server takes. Never tools. */
import { Exit, RtaError } from "../core/errors.ts";
import { type Scalar, table } from "../core/result.ts";
import { relativeWords } from "../core/words.ts";
import { listTokens, newToken, revokeTokens } from "../gate/operator/tokens.ts";
import type { Cli } from "./factory.ts";
import { paint, wantsJson } from "./io.ts";
import { renderHuman } from "./render.ts";
import { reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

/** Makes a token and prints it once; every refusal is the gate's (gate/operator/tokens.ts), said here. */
export function tokenNew(cli: Cli, opts: { agent: string; ttl?: string; json?: boolean }): number {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const { token, row } = newToken(deps, { agent: opts.agent, ttl: opts.ttl });
    if (wantsJson(io, opts.json))
      io.out(`${JSON.stringify({ token, id: row.id, agent: row.agent, expires_at: row.expires_at })}\n`);
    else
      io.out(
        `${token}\n${paint(io).dim(`token ${row.id} for agent ${row.agent}; it is shown once, keep it somewhere safe`)}\n`,
      );
    return Exit.ok;
  } catch (err) {
    return reportError(
      io,
      err instanceof RtaError ? err : new RtaError("core.internal", "the token could not be made"),
      opts.json === true,
    );
  }
}

/** The tokens as a table (or JSON), never a token or its hash; refuses nothing of its own. */
export function tokenList(cli: Cli, opts: { json?: boolean }): number {
  const deps = cli.deps();
  const { now, tokens } = listTokens(deps);
  if (wantsJson(cli.io, opts.json)) {
    cli.io.out(`${JSON.stringify({ tokens })}\n`);
    return Exit.ok;
  }
  if (tokens.length === 0) {
    cli.io.out("no tokens\n");
    return Exit.ok;
  }
  const rows: Scalar[][] = tokens.map((t) => [
    t.id,
    t.agent,
    t.expires_at === null ? "never" : relativeWords(t.expires_at / 1000, now / 1000),
    t.state,
  ]);
  cli.io.out(renderHuman(table(["id", "agent", "expires", "state"], rows), paint(cli.io)));
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
