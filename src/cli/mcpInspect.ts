/**
 * `rta mcp inspect`: what an agent would be told by `rta mcp serve` started
 * with the same flags, asked of the server itself (src/mcp/inspect.ts), in
 * the three forms: a readable layout on a terminal, one tab-separated line a
 * thing piped, JSON with --json. Never a tool (the mcp area is never one).
 */
import { resolve } from "node:path";
import { optionalAgentName } from "../core/agentName.ts";
import { RtaError } from "../core/errors.ts";
import { agentLimits } from "../gate/bound.ts";
import { ERAS, type InspectEra, type InspectedTool, type Inspection, inspectServer } from "../mcp/inspect.ts";
import type { ServeContext } from "../mcp/server.ts";
import type { RecordSink } from "../record/line.ts";
import { redactorFor } from "./deps.ts";
import type { Cli } from "./factory.ts";
import { jsonText, outputForm, paint } from "./io.ts";
import { checkServedPlaces, parseMaxResult } from "./mcp.ts";
import { plainCell } from "./plain.ts";
import { shown } from "./render.ts";
import { reportError } from "./report.ts";

export interface InspectFlags {
  agent?: string;
  era?: string;
  json?: boolean;
  root: string[];
  kv?: boolean;
  maxResult?: string;
  http?: boolean;
}

/** Inspecting makes no call: a line it would write to the record is a fault, said as the record being unavailable. */
const NO_RECORD: RecordSink = {
  append() {
    throw new RtaError("core.record.unavailable", "rta mcp inspect makes no call and writes no record");
  },
};

/**
 * Prints what the server tells an agent on the era asked (default
 * 2025-11-25) and returns the exit status. Refuses an era it does not speak
 * (core.input.option), and what `rta mcp serve` refuses of the same flags.
 */
export async function inspect(cli: Cli, flags: InspectFlags): Promise<number> {
  const { io } = cli;
  const json = flags.json === true;
  let ctx: ServeContext;
  let era: InspectEra;
  try {
    era = eraOf(flags.era);
    const maxResult = parseMaxResult(flags.maxResult);
    const agent = optionalAgentName(flags.agent);
    checkServedPlaces(flags.root, []);
    const deps = cli.serverDeps(
      NO_RECORD,
      flags.root.map((r) => resolve(r)),
    );
    if (!flags.kv && !io.env.RTA_KV_IDENTITY) deps.dirs = { ...deps.dirs, identity: null };
    if (flags.http) deps.redactor = redactorFor(deps.dirs, io.env.RTA_KV_IDENTITY, deps.roots.roots, flags.root);
    // the upstreams as the last discovery kept them: what a server would offer, with none of them started
    await cli.loadUpstreams(false);
    // and their selected resources, templates and prompts, listed as a server lists them (inspecting reads none)
    const upstreams = cli.selections();
    ctx = {
      catalogue: cli.catalogue,
      deps,
      session: "inspect",
      transport: flags.http ? "http" : "stdio",
      limits: agentLimits(maxResult),
      ...(agent !== undefined ? { agent } : {}),
      ...(upstreams !== undefined ? { upstreams } : {}),
    };
  } catch (err) {
    if (err instanceof RtaError) return reportError(io, err, json);
    throw err;
  }
  const seen = await inspectServer(ctx, era, cli.clock.now());
  cli.closePlugins();
  const form = outputForm(io, flags.json);
  if (form === "json") io.out(jsonText(io, seen));
  else if (form === "plain") io.out(plainLines(seen));
  else io.out(layout(seen, paint(io)));
  return 0;
}

function eraOf(era: string | undefined): InspectEra {
  if (era === undefined) return "2025-11-25";
  if ((ERAS as readonly string[]).includes(era)) return era as InspectEra;
  throw new RtaError(
    "core.input.option",
    `--era ${JSON.stringify(era)} is not a protocol revision rta speaks`,
    `name one of: ${ERAS.join(", ")}`,
  );
}

/** The grants column: free, a grant the agent does not hold, or the ones it holds. */
function accessWords(t: InspectedTool): string {
  if (t.lock !== undefined) return `locked (${t.lock}): refused whatever it holds`;
  if (t.access === "free") return "free";
  if (t.grants === undefined) return "needs a grant";
  if (t.grants.length === 0) return "needs a grant, none held";
  return `needs a grant, held: ${t.grants.map((g) => [g.id, ...g.narrowed].join(" ")).join("; ")}`;
}

/**
 * Piped: one line a thing, its kind first, tab-separated, every text escaped,
 * so `grep ^tool` and `cut` work. A tool's line: name, free or grant, the ids
 * of the grants the agent holds for it (comma-separated), the lock that stops
 * the agent's calls to it, bytes, description, annotations and input schema
 * as JSON.
 */
function plainLines(s: Inspection): string {
  const row = (...cells: unknown[]) => `${cells.map(plainCell).join("\t")}\n`;
  return [
    row("era", s.era),
    row("agent", s.agent ?? ""),
    row("instructions", s.instructions),
    ...s.tools.map((t) =>
      row(
        "tool",
        t.name,
        t.access,
        (t.grants ?? []).map((g) => g.id).join(","),
        t.lock ?? "",
        t.bytes,
        t.description,
        t.annotations ?? {},
        t.inputSchema,
      ),
    ),
    ...s.resources.map((r) => row("resource", r.uri, r.name, r.description)),
    ...s.templates.map((r) => row("template", r.uriTemplate, r.name, r.description)),
    ...s.prompts.map((p) => row("prompt", p.name, p.description)),
    row("tools", s.tools.length),
    row("bytes_per_tool", s.bytesPerTool),
    row("tools_list_bytes", s.listBytes),
  ].join("");
}

/** An input as a person reads it: its name, type, bounds, options, default, and whether it is required. */
function inputWords(t: InspectedTool): string {
  const schema = t.inputSchema as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const words = Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const bits = [String(p.type ?? "any")];
    if (Array.isArray(p.enum)) bits.push(p.enum.join("|"));
    if (p.minimum !== undefined || p.maximum !== undefined) bits.push(`${p.minimum ?? ""}..${p.maximum ?? ""}`);
    if (p.default !== undefined) bits.push(`default ${JSON.stringify(p.default)}`);
    if (required.has(name)) bits.push("required");
    return `${name} (${bits.join(", ")})`;
  });
  return words.length === 0 ? "none" : words.join(", ");
}

/** On a terminal: sections with headings, each tool's description indented under its name, bytes and access. */
function layout(s: Inspection, p: ReturnType<typeof paint>): string {
  const indent = (text: string, by = "  ") =>
    text
      .split("\n")
      .map((l) => `${by}${shown(l)}`)
      .join("\n");
  const out: string[] = [];
  out.push(
    p.bold(`What an agent is told on ${s.era}`) +
      (s.agent === undefined ? " (agent not named: its grants' commands say <your name>)" : ` (agent ${s.agent})`),
    "",
    p.bold("Instructions"),
    indent(s.instructions),
    "",
    `${p.bold(`Tools (${s.tools.length})`)}  ${s.bytesPerTool} B a tool on average in tools/list; the whole answer ${s.listBytes} B`,
  );
  for (const t of s.tools) {
    const words = accessWords(t);
    const access = t.lock !== undefined ? p.red(words) : t.access === "free" ? p.green(words) : p.yellow(words);
    out.push("", `  ${p.bold(shown(t.name))}  ${t.bytes} B  ${access}`);
    out.push(indent(t.description, "    "));
    out.push(p.dim(`    inputs: ${shown(inputWords(t))}`));
    out.push(p.dim(`    annotations: ${shown(JSON.stringify(t.annotations ?? {}))}`));
  }
  const listed = (title: string, items: Record<string, unknown>[], key: string) => {
    out.push("", p.bold(`${title} (${items.length})`));
    for (const r of items) out.push(`  ${shown(String(r[key]))}  ${p.dim(shown(String(r.description ?? "")))}`);
  };
  listed("Resources", s.resources, "uri");
  listed("Resource templates", s.templates, "uriTemplate");
  listed("Prompts", s.prompts, "name");
  return `${out.join("\n")}\n`;
}
