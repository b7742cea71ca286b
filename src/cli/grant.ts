/**
 * `rta grant allow | list | revoke`: a person's consent, time-boxed and
 * counted. Never a tool: no agent can reach these verbs.
 */
import { formatDuration } from "../core/duration.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { type Scalar, table } from "../core/result.ts";
import { relativeWords } from "../core/words.ts";
import type { Grant } from "../gate/gateStore.ts";
import { type Coverage, grantCoverage } from "../gate/operator/coverage.ts";
import {
  type GrantRequest,
  issuePlanned,
  listGrants,
  planGrant,
  revoke as revokeGrants,
} from "../gate/operator/grants.ts";
import type { Cli } from "./factory.ts";
import { paint, wantsJson } from "./io.ts";
import { renderHuman, shown } from "./render.ts";
import { reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

/** The flags of `grant allow`: the request as typed (the target and record come in position), --yes and --json. */
export type AllowOptions = Omit<GrantRequest, "target" | "record"> & { json?: boolean; yes?: boolean };

/**
 * Says what the grant asked for would cover, asks `issue it? [y/N]` at a
 * terminal when it covers a destructive capability (unless --yes), then issues
 * it and prints it. Every refusal but the person's no is the gate's
 * (gate/operator/grants.ts); anything but y or yes issues nothing (core.grant.declined).
 */
export function allow(cli: Cli, target: string, record: string | undefined, opts: AllowOptions): number {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const plan = planGrant(deps, cli.catalogue, { ...opts, target, record });
    const json = wantsJson(io, opts.json);
    // Piped or --json, stdout stays the grant alone: the price goes to stderr.
    const say = json ? io.err : io.out;
    const coverage = grantCoverage(cli.catalogue, plan);
    say(describeCoverage(coverage, plan.row));
    if (coverage.destructive && opts.yes !== true && io.stdinIsTTY && io.stdoutIsTTY) {
      say("issue it? [y/N] ");
      if (!/^(y|yes)$/i.test(io.readLine().trim()))
        throw new RtaError("core.grant.declined", "no grant was issued", "answer y to issue it, or give --yes");
    }
    const { grant, now } = issuePlanned(deps, plan);
    if (json) io.out(`${JSON.stringify(grant)}\n`);
    else io.out(`${describeGrant(grant, now)}\n`);
    return Exit.ok;
  } catch (err) {
    return reportError(
      io,
      err instanceof RtaError ? err : new RtaError("core.internal", "the grant could not be issued"),
      opts.json === true,
    );
  }
}

/** What a grant would cover, as lines: whom for, each capability with its safety class, the hosts, the uses, the time. */
function describeCoverage(c: Coverage, row: Narrowed & { agent: string }): string {
  const narrowed = narrowing(row);
  const width = Math.max(...c.capabilities.map((x) => x.name.length), 0);
  const lines = [`a grant of ${shown(c.target)} for agent ${shown(row.agent)} would cover:`];
  for (const x of c.capabilities) lines.push(`  ${x.name.padEnd(width)}  ${x.safety}`);
  if (c.capabilities.length === 0) lines.push("  nothing: the team policy never grants any of it");
  if (narrowed) lines.push(`narrowed to: ${shown(narrowed)}`);
  lines.push(
    `hosts: ${c.hosts === null ? "none (it reaches no host)" : c.hosts === "any" ? "any it names" : shown(c.hosts)}`,
  );
  lines.push(`uses: ${c.uses === null ? "any number" : c.uses}`);
  lines.push(`time: ${formatDuration(c.ttlMs)}`);
  return `${lines.join("\n")}\n`;
}

/** One line saying what a grant allows, whom, until when and how often; its record and host shown escaped. */
export function describeGrant(g: Grant, now: number): string {
  const narrowed = narrowing(g);
  const uses = g.max_uses === null ? "any number of uses" : `${g.max_uses} use${g.max_uses === 1 ? "" : "s"}`;
  const until = new Date(g.expires_at).toISOString().replace(/\.\d+Z$/, "Z");
  // Shown escaped: a record is often pasted from the command an agent's refusal suggested, with the agent's bytes.
  return `granted ${g.id}: ${shown(g.target)}${narrowed ? ` (${shown(narrowed)})` : ""} for agent ${shown(g.agent)}, until ${until} (in ${formatDuration(g.expires_at - now)}), ${uses}`;
}

type Narrowed = Pick<Grant, "record" | "host" | "connection" | "profile" | "args_digest">;

/** What a grant is narrowed to, as words; empty when it is not. */
function narrowing(g: Narrowed): string {
  const parts: string[] = [];
  if (g.record !== null) parts.push(`record ${g.record}`);
  if (g.host !== null) parts.push(`host ${g.host}`);
  if (g.connection !== null) parts.push(`connection ${g.connection}`);
  if (g.profile !== null) parts.push(`profile ${g.profile}`);
  if (g.args_digest !== null) parts.push(`args ${g.args_digest.slice(0, 12)}`);
  return parts.join(", ");
}

/** The grants as a table (or JSON), only one agent's with --agent; a bad agent name is refused before the store opens. */
export function list(cli: Cli, opts: { agent?: string; detail?: boolean; json?: boolean }): number {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const { now, grants } = listGrants(deps, opts.agent);
    const columns = ["id", "target", "agent", "narrowed to", "uses", "expires", "state"];
    if (opts.detail) columns.push("issued", "issued by", "build");
    const rows: Scalar[][] = grants.map((g) => {
      const row: Scalar[] = [
        g.id,
        g.target,
        g.agent,
        narrowing(g) || "-",
        `${g.uses}/${g.max_uses ?? "any"}`,
        // a revoked or spent grant ends with its state, not its clock
        ["live", "expired"].includes(g.state) ? relativeWords(g.expires_at / 1000, now / 1000) : "-",
        g.state,
      ];
      if (opts.detail)
        row.push(
          new Date(g.issued_at).toISOString(),
          g.issued_by,
          g.digest ? `${g.build} (plugin ${g.digest.slice(0, 12)})` : `${g.build} (built-in)`,
        );
      return row;
    });
    if (wantsJson(io, opts.json)) {
      io.out(`${JSON.stringify({ grants })}\n`);
    } else if (rows.length === 0) io.out("no grants\n");
    else io.out(renderHuman(table(columns, rows), paint(io)));
    return Exit.ok;
  } catch (err) {
    return reportError(
      io,
      err instanceof RtaError ? err : new RtaError("core.internal", "the grants could not be listed"),
      opts.json === true,
    );
  }
}

/** Revokes the grants chosen by id, --agent or --all, and says how many. */
export function revoke(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
): number {
  return endSelected(cli, id, opts, {
    noun: "grant",
    verb: "revoked",
    lister: "rta grant list",
    act: (deps, by) => revokeGrants(deps, by),
  });
}
