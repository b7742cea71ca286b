/**
 * `rta grant allow | list | revoke`: a person's consent, time-boxed and
 * counted. Never a tool: no agent can reach these verbs.
 */
import { readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { version } from "../../package.json";
import { checkAgentName, namesAgent, optionalAgentName } from "../core/agentName.ts";
import type { Capability } from "../core/capability.ts";
import { type ConfigSource, EMPTY_CONFIG, usable } from "../core/config.ts";
import { formatDuration, parseDuration } from "../core/duration.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { hostOf, isHostOrAddress } from "../core/hostName.ts";
import { type Scalar, table } from "../core/result.ts";
import { relativeWords } from "../core/words.ts";
import { argsDigest } from "../gate/argsDigest.ts";
import { checkDeclaration } from "../gate/declaration.ts";
import { fill } from "../gate/fill.ts";
import type { Grant } from "../gate/gateStore.ts";
import { recordKey } from "../gate/grants.ts";
import { checkCeiling } from "../gate/policy.ts";
import { checkShape } from "../gate/shape.ts";
import type { Cli } from "./factory.ts";
import { paint, wantsJson } from "./io.ts";
import { renderHuman, shown } from "./render.ts";
import { reportError } from "./report.ts";
import { endSelected } from "./selection.ts";

export interface AllowOptions {
  agent: string;
  ttl: string;
  maxUses?: string;
  connection?: string;
  profile?: string;
  host?: string;
  args?: string;
  json?: boolean;
}

/** Who issued a grant or a lock: the operating system's user, by name where the user database has one. */
export function issuer(): string {
  let name = "";
  try {
    name = userInfo().username;
  } catch {
    // no entry for this uid: looked up below
  }
  if (name && name !== "unknown") return name;
  const uid = process.getuid?.();
  if (uid === undefined) return "unknown";
  try {
    const line = readFileSync("/etc/passwd", "utf8")
      .split("\n")
      .find((l) => l.split(":")[2] === String(uid));
    if (line) return line.split(":")[0] as string;
  } catch {
    // no user database: the uid says who
  }
  return `uid ${uid}`;
}

/** A capability or an area the catalogue offers; never-a-tool names are in neither. */
export function resolveTarget(cli: Cli, target: string): { cap?: Capability; area?: string } {
  const cap = cli.catalogue.byName(target);
  if (cap) return { cap };
  if (cli.catalogue.areas().includes(target)) return { area: target };
  throw new RtaError(
    "core.tool.unknown",
    `no capability or area is named ${JSON.stringify(target)}`,
    "run `rta explain` to list them",
  );
}

/** A grant's --host: a host name or address alone, on a capability (or an area with one) that reaches a host. */
function grantHost(cli: Cli, target: string, cap: Capability | undefined, value: string): string {
  const caps = cap ? [cap] : cli.catalogue.all().filter((c) => c.area === target);
  if (!caps.some((c) => c.reaches !== undefined))
    throw new RtaError(
      "core.input.invalid",
      `${target} reaches no host, so --host would narrow nothing`,
      "leave --host out",
    );
  const text = value.trim();
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? hostOf(text, true) : null;
  const host = url ?? hostOf(text);
  const port = url === null && /^(\[[^\]]*\]|[^:[\]]+):\d+$/.test(text);
  if (url !== null || port || host === null || !isHostOrAddress(host)) {
    const plain = url ?? (port ? hostOf(text.replace(/:\d+$/, "")) : null);
    throw new RtaError(
      "core.input.invalid",
      `--host ${JSON.stringify(value)} is not a host name`,
      plain
        ? `a grant names the host alone: --host ${plain}`
        : "give a host name or an address, e.g. --host example.com",
    );
  }
  return host;
}

export function allow(cli: Cli, target: string, record: string | undefined, opts: AllowOptions): number {
  const { io } = cli;
  try {
    const { cap } = resolveTarget(cli, target);
    checkAgentName(opts.agent);
    const ttlMs = parseDuration(opts.ttl);
    let maxUses: number | null = null;
    if (opts.maxUses !== undefined) {
      if (!/^\d+$/.test(opts.maxUses))
        throw new RtaError(
          "core.input.invalid",
          `--max-uses ${JSON.stringify(opts.maxUses)} is not a whole number`,
          "give --max-uses a whole number from 1",
        );
      maxUses = Number(opts.maxUses);
      if (maxUses < 1)
        throw new RtaError(
          "core.input.range",
          `--max-uses is ${JSON.stringify(opts.maxUses)}`,
          "give --max-uses a whole number from 1",
        );
    }
    if (record !== undefined && cap?.record === undefined) {
      throw new RtaError("core.input.invalid", `${target} has no record to narrow a grant to`, "leave the record out");
    }
    // An empty narrowing would be read as none at all: a grant for every record or host.
    for (const [flag, value] of [
      ["the record", record],
      ["--host", opts.host],
      ["--connection", opts.connection],
      ["--profile", opts.profile],
    ] as const) {
      if (value !== undefined && value.trim() === "")
        throw new RtaError("core.input.invalid", `${flag} is empty`, `give ${flag} a value, or leave it out`);
    }
    // A call reaches a connection only through a profile, and naming a profile needs a grant for it: a grant
    // naming a connection and no profile would match no call at all.
    if (opts.connection !== undefined && opts.profile === undefined)
      throw new RtaError(
        "core.input.invalid",
        "--connection narrows a grant for calls through a profile, and names none",
        "give --profile too: the profile whose connection it is",
      );
    const host = opts.host !== undefined ? grantHost(cli, target, cap, opts.host) : null;
    const deps = cli.deps();
    let digest: string | null = null;
    if (opts.args !== undefined) {
      if (!cap)
        throw new RtaError(
          "core.input.invalid",
          "--args binds a grant to one call of one capability, not an area",
          `name a capability of ${target}`,
        );
      digest = argsDigest(boundArgs(cli, cap, opts.args, deps.config));
    }
    const policy = deps.policy.current();
    const targets = cap ? [cap.name, cap.area] : [target];
    if (maxUses === null && policy.maxUses !== undefined) maxUses = policy.maxUses;
    checkCeiling(policy, { targets, agent: opts.agent, ttlMs, maxUses });
    const now = deps.clock.now();
    const grant = deps.gate().issue({
      target,
      record: record !== undefined && cap ? recordKey(cap, record) : null,
      agent: opts.agent,
      connection: opts.connection ?? null,
      profile: opts.profile ?? null,
      host,
      args_digest: digest,
      max_uses: maxUses,
      issued_at: now,
      expires_at: now + ttlMs,
      issued_by: issuer(),
      build: `rta ${version}`,
      digest: null,
    });
    if (wantsJson(io, opts.json)) io.out(`${JSON.stringify(grant)}\n`);
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

/** The arguments `--args` names, checked as an agent's call would be and filled with defaults, as the gate sees them. */
function boundArgs(cli: Cli, cap: Capability, text: string, configSource: ConfigSource): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RtaError(
      "core.input.invalid",
      "--args is not JSON",
      `give the call's arguments as a JSON object, e.g. --args '{"id":"x"}'`,
    );
  }
  const call = {
    capability: cap.tool,
    args: parsed as Record<string, unknown>,
    origin: { kind: "agent" as const, name: "-", client: "-", session: "-", transport: "memory" as const },
  };
  const config = usable(configSource.current()) ?? EMPTY_CONFIG;
  const { sent } = checkDeclaration(cap, call, checkShape(cap, call, cli.catalogue), config);
  return fill(cap, sent, config);
}

export function describeGrant(g: Grant, now: number): string {
  const narrowed = narrowing(g);
  const uses = g.max_uses === null ? "any number of uses" : `${g.max_uses} use${g.max_uses === 1 ? "" : "s"}`;
  const until = new Date(g.expires_at).toISOString().replace(/\.\d+Z$/, "Z");
  // Shown escaped: a record is often pasted from the command an agent's refusal suggested, with the agent's bytes.
  return `granted ${g.id}: ${shown(g.target)}${narrowed ? ` (${shown(narrowed)})` : ""} for agent ${shown(g.agent)}, until ${until} (in ${formatDuration(g.expires_at - now)}), ${uses}`;
}

function narrowing(g: Grant): string {
  const parts: string[] = [];
  if (g.record !== null) parts.push(`record ${g.record}`);
  if (g.host !== null) parts.push(`host ${g.host}`);
  if (g.connection !== null) parts.push(`connection ${g.connection}`);
  if (g.profile !== null) parts.push(`profile ${g.profile}`);
  if (g.args_digest !== null) parts.push(`args ${g.args_digest.slice(0, 12)}`);
  return parts.join(", ");
}

export function grantState(g: Grant, now: number): "live" | "spent" | "expired" | "revoked" {
  if (g.revoked_at !== null) return "revoked";
  if (g.expires_at <= now) return "expired";
  if (g.max_uses !== null && g.uses >= g.max_uses) return "spent";
  return "live";
}

export function list(cli: Cli, opts: { agent?: string; detail?: boolean; json?: boolean }): number {
  const { io } = cli;
  try {
    const agent = optionalAgentName(opts.agent);
    const deps = cli.deps();
    const now = deps.clock.now();
    const grants = deps
      .gate()
      .list()
      .filter((g) => agent === undefined || namesAgent(agent, g.agent));
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
        ["live", "expired"].includes(grantState(g, now)) ? relativeWords(g.expires_at / 1000, now / 1000) : "-",
        grantState(g, now),
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
      io.out(`${JSON.stringify({ grants: grants.map((g) => ({ ...g, state: grantState(g, now) })) })}\n`);
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

export function revoke(
  cli: Cli,
  id: string | undefined,
  opts: { agent?: string; all?: boolean; json?: boolean },
): number {
  return endSelected(cli, id, opts, {
    noun: "grant",
    verb: "revoked",
    lister: "rta grant list",
    act: (d, by, now) => d.gate().revoke(by, now),
  });
}
