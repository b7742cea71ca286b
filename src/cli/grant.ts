/**
 * `rta grant allow | list | revoke`: a person's consent, time-boxed and
 * counted. Never a tool: no agent can reach these verbs.
 */
import type { Catalogue } from "../core/catalogue.ts";
import { formatDuration } from "../core/duration.ts";
import { Exit, RtaError } from "../core/errors.ts";
import type { Grant } from "../gate/gateStore.ts";
import { knownAgents, soleAgent } from "../gate/operator/agents.ts";
import { type Coverage, grantCoverage } from "../gate/operator/coverage.ts";
import {
  type GrantRequest,
  issuePlanned,
  type ListedGrant,
  listGrants,
  planGrant,
  revoke as revokeGrants,
  staleFix,
} from "../gate/operator/grants.ts";
import { agentsInRecord } from "./agentsSeen.ts";
import type { Cli } from "./factory.ts";
import { personSaysSo } from "./grantFrom.ts";
import { type Form, jsonText, outputForm } from "./io.ts";
import { type Column, isoTime, printListing, readerLeft, relativeTime, timeFor } from "./listing.ts";
import { shown } from "./render.ts";
import { refusalOf, reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

/** The flags of `grant allow`: the request as typed (the target and what it narrows to come in position), --yes and --json. */
export type AllowOptions = Omit<GrantRequest, "target" | "record" | "agent"> & {
  agent?: string;
  json?: boolean;
  yes?: boolean;
};

/**
 * Says what the grant asked for would cover, asks `issue it? [y/N]` at a
 * terminal when it covers a destructive capability (unless --yes), then issues
 * it and prints it: a sentence on a terminal, the grant's id alone piped (so
 * `id=$(rta grant allow ...)` can revoke it), the grant with --json. With no
 * --agent, the one agent registered or seen is meant, said on stderr; none or
 * several is core.input.missing. Every other refusal but the person's no is
 * the gate's (gate/operator/grants.ts); anything but y or yes issues nothing
 * (core.grant.declined). Under the policy's grant_from the person is asked
 * on the terminal itself, --yes or not (grantFrom.ts).
 */
export async function allow(cli: Cli, target: string, record: string | undefined, opts: AllowOptions): Promise<number> {
  const { io } = cli;
  try {
    const deps = cli.deps();
    let agent = opts.agent;
    if (agent === undefined) {
      const typed = [target, ...(record !== undefined ? [record] : []), "--ttl", opts.ttl];
      // shown escaped: what was typed may hold bytes a terminal would act on, pasted from an agent's refusal
      const example = shown(`rta grant allow ${typed.map(shellWord).join(" ")}`);
      agent = soleAgent(knownAgents(deps, agentsInRecord(cli)), example);
      io.err(`for agent ${agent}, the one agent registered or seen\n`);
    }
    refuseChanged(cli, target);
    refuseUndiscovered(cli, target);
    const plan = planGrant(deps, cli.catalogue, { ...opts, agent, target, record });
    const form = outputForm(io, opts.json);
    // Piped or --json, stdout stays the grant alone: the price goes to stderr.
    const say = form === "terminal" ? io.out : io.err;
    const coverage = grantCoverage(cli.catalogue, plan);
    const described = describeCoverage(cli.catalogue, coverage, { ...plan.row, args: plan.args ?? null });
    // under grant_from, the person is shown it and answers on the terminal itself, --yes or not
    const asked = await personSaysSo(cli, described, "issue it", { command: "rta grant allow", agent, target });
    if (!asked) say(described);
    if (!asked && coverage.destructive && opts.yes !== true && io.stdinIsTTY && io.stdoutIsTTY) {
      say("issue it? [y/N] ");
      if (!/^(y|yes)$/i.test(io.readLine().trim()))
        throw new RtaError("core.grant.declined", "no grant was issued", "answer y to issue it, or give --yes");
    }
    const { grant, now } = issuePlanned(deps, plan);
    const listed = { ...grant, args: plan.args ?? null };
    if (form === "json") io.out(jsonText(io, grantJson(listed)));
    else if (form === "plain") io.out(`${grant.id}\n`);
    else io.out(`${describeGrant(cli.catalogue, listed, now)}\n`);
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the grant could not be issued"), opts.json === true);
  }
}

/**
 * A grant naming a tool of an upstream in config that no discovery has listed (a new entry, or one whose last
 * discovery failed) is refused as an unknown name would be (core.tool.unknown), with how to discover it: the
 * catalogue alone would only say that no such capability exists.
 */
function refuseUndiscovered(cli: Cli, target: string): void {
  if (cli.catalogue.byName(target) || cli.catalogue.areas().includes(target)) return;
  const upstream = cli.upstreams().find((u) => u.name === target.split(".")[0]);
  if (upstream === undefined) return;
  const held = upstream.tools.find((t) => t.withheld !== undefined && target === t.heldAs);
  if (upstream.state === "quarantined" || held !== undefined)
    throw new RtaError(
      upstream.state === "quarantined" ? "upstream.quarantined" : "upstream.changed",
      `${JSON.stringify(target)} is withheld: upstream ${upstream.name} ${upstream.state === "quarantined" ? "is not approved yet" : "changed this tool since it was approved"}`,
      `run \`rta upstream approve ${upstream.name}\` to see its tools and approve them, then grant again`,
    );
  const why = upstream.reason;
  throw new RtaError(
    "core.tool.unknown",
    `rta knows no tool ${JSON.stringify(target)} of upstream ${upstream.name}${why ? ` (${why})` : ""}`,
    why
      ? "run `rta upstream list` to discover its tools now, then grant again"
      : "`rta upstream list` shows the tools it offers",
  );
}

/**
 * A grant on a plugin whose binary changed since it was installed would be
 * pinned to a binary nobody installed: refused (core.plugin.changed) until
 * the person installs the binary they trust.
 */
function refuseChanged(cli: Cli, target: string): void {
  const plugin = target.split(".")[0];
  const changed = cli.plugins().find((p) => p.name === plugin && p.offered && p.changed);
  if (changed)
    throw new RtaError(
      "core.plugin.changed",
      `plugin ${changed.name} changed since it was installed, so no grant is issued for it`,
      `run \`rta pkg verify\` to see it; \`rta pkg install\` the binary you trust, then grant again`,
    );
}

/** A word as a shell takes it: quoted only when it must be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** What a grant would cover, as lines: whom for, each capability with its safety class, the hosts, the uses, the time. */
function describeCoverage(catalogue: Catalogue, c: Coverage, row: Narrowed & { agent: string }): string {
  const narrowed = narrowing(catalogue, c.target, row);
  const width = Math.max(...c.capabilities.map((x) => x.name.length), 0);
  const lines = [`a grant of ${shown(c.target)} for agent ${shown(row.agent)} would cover:`];
  // a read that reveals is priced as such: "read" alone would hide that the grant hands over a secret's value
  for (const x of c.capabilities)
    lines.push(
      `  ${x.name.padEnd(width)}  ${x.safety}${catalogue.byName(x.name)?.reveals ? ", reveals a stored secret's value" : ""}`,
    );
  if (c.capabilities.length === 0) lines.push("  nothing: the team policy never grants any of it");
  if (narrowed) lines.push(`narrowed to: ${shown(narrowed)}`);
  lines.push(`hosts: ${hostsLine(c.hosts)}`);
  lines.push(`uses: ${c.uses === null ? "any number" : c.uses}`);
  lines.push(`time: ${formatDuration(c.ttlMs)}`);
  return `${lines.join("\n")}\n`;
}

function hostsLine(hosts: Coverage["hosts"]): string {
  if (hosts === null) return "none (it reaches no host)";
  if (hosts === "any") return "any it names";
  if (hosts === "named") return "none until one is named with --host (a plugin connects where rta cannot check it)";
  return shown(hosts);
}

/** One line saying what a grant allows, whom, until when and how often; what it is narrowed to shown escaped. */
function describeGrant(catalogue: Catalogue, g: Grant & { args: string | null }, now: number): string {
  const narrowed = narrowing(catalogue, g.target, g);
  const uses = g.max_uses === null ? "any number of uses" : `${g.max_uses} use${g.max_uses === 1 ? "" : "s"}`;
  // Shown escaped: a path is often pasted from the command an agent's refusal suggested, with the agent's bytes.
  return `granted ${g.id}: ${shown(g.target)}${narrowed ? ` (${shown(narrowed)})` : ""} for agent ${shown(g.agent)}, until ${isoTime(g.expires_at)} (${relativeTime(g.expires_at, now)}), ${uses}`;
}

type Narrowed = Pick<Grant, "record" | "host" | "connection" | "profile" | "args_digest"> & { args: string | null };

/**
 * What a grant is narrowed to, as words ("path hello.txt", "host example.com",
 * "args {"id":"x"}"); empty when it is not. The value a grant is narrowed to
 * in position is named by the capability's input (path, id, key, pid); an
 * --args grant issued before its arguments were kept shows its digest.
 */
function narrowing(catalogue: Catalogue, target: string, g: Narrowed): string {
  const parts: string[] = [];
  if (g.record !== null) parts.push(`${catalogue.byName(target)?.record ?? "value"} ${g.record}`);
  if (g.host !== null) parts.push(`host ${g.host}`);
  if (g.connection !== null) parts.push(`connection ${g.connection}`);
  if (g.profile !== null) parts.push(`profile ${g.profile}`);
  if (g.args !== null) parts.push(`args ${g.args}`);
  else if (g.args_digest !== null) parts.push(`args digest ${g.args_digest.slice(0, 12)}`);
  return parts.join(", ");
}

/** A grant as --json gives it: its row in the order it has always had, times in ISO, and its --args as written. */
function grantJson(g: Grant & { args: string | null; state?: string }): Record<string, unknown> {
  return {
    ...g,
    issued_at: isoTime(g.issued_at),
    expires_at: isoTime(g.expires_at),
    revoked_at: isoTime(g.revoked_at),
  };
}

/**
 * The grants, only one agent's with --agent: a grid on a terminal, a
 * tab-separated row a grant piped, `{"grants": [...], "total": n}` with
 * --json. A bad agent name is refused before the store opens.
 */
export function list(cli: Cli, opts: { agent?: string; detail?: boolean; json?: boolean }): number {
  const { io } = cli;
  try {
    const deps = cli.deps();
    const { now, grants } = listGrants(deps, opts.agent);
    const live = (g: ListedGrant) => ["live", "expired"].includes(g.state);
    const columns: Column<ListedGrant>[] = [
      { name: "id", cell: (g) => g.id },
      { name: "target", cell: (g) => g.target },
      { name: "agent", cell: (g) => g.agent },
      { name: "narrowed to", cell: (g) => narrowing(cli.catalogue, g.target, g) || null },
      { name: "uses", cell: (g) => `${g.uses}/${g.max_uses ?? "any"}` },
      // on a terminal a revoked or spent grant ends with its state, not its clock
      {
        name: "expires",
        cell: (g, form: Form) => (form === "terminal" && !live(g) ? null : timeFor(form, g.expires_at, now, "-")),
      },
      { name: "state", cell: (g) => g.state },
    ];
    if (opts.detail)
      columns.push(
        { name: "issued", cell: (g, form) => timeFor(form, g.issued_at, now, "-") },
        { name: "issued by", cell: (g) => g.issued_by },
        {
          name: "build",
          cell: (g) => (g.digest ? `${g.build} (plugin ${g.digest.slice(0, 12)})` : `${g.build} (built-in)`),
        },
        { name: "fix", cell: (g) => fixes.get(g.id) ?? null },
      );
    // a grant on a plugin binary replaced since covers nothing: --detail says so beside it, with what to run
    const fixes = new Map<string, string>();
    if (opts.detail)
      for (const g of grants) {
        const fix = staleFix(cli.catalogue, g);
        if (fix !== undefined) fixes.set(g.id, fix);
      }
    const json = (g: ListedGrant) => ({ ...grantJson(g), ...(opts.detail ? { fix: fixes.get(g.id) ?? null } : {}) });
    printListing(cli, opts.json, { key: "grants", items: grants, columns, json, empty: "no grants" });
    return Exit.ok;
  } catch (err) {
    if (readerLeft(err)) return Exit.ok;
    return reportError(io, refusalOf(io, err, "the grants could not be listed"), opts.json === true);
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
