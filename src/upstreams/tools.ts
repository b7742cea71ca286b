/**
 * An upstream's discovered tools as rta capabilities. Each is named
 * `<upstream>.<tool>` (the MCP tool `<upstream>_<tool>`), its tool's name
 * normalised to rta's rule (lowercase words joined by `_`); a name two tools
 * normalise to, or one past the rule, leaves that tool out with the reason.
 * Its input schema is the upstream's, offered as it is once ajv compiles it
 * (one that does not compile leaves that tool out, and only it). Its safety
 * class comes from its annotations, read as the least they promise: a free
 * read only when it says readOnlyHint and not openWorldHint; config may make
 * it stricter, or laxer only beside `trust = true`.
 */

import type { Capability, InputSpec, Inputs, Safety, UpstreamRef } from "../core/capability.ts";
import type { ValidatorSet } from "../core/catalogue.ts";
import { type UpstreamConfig, upstreamSecrets } from "../core/configUpstreams.ts";
import { controlAt } from "../core/controlChars.ts";
import type { UpstreamTool } from "./discover.ts";
import { schemaFault, validatorFor } from "./schemas.ts";
import { masked } from "./secrets.ts";

/** A tool of an upstream left out, and why. */
export interface LeftOut {
  tool: string;
  reason: string;
}

const ORDER: readonly Safety[] = ["read", "write", "destructive"];
const TOOL_WORDS = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** `readFile`, `read-file` and `Read File` as `read_file`; undefined when nothing of rta's rule is left. */
export function normalisedName(tool: string): string | undefined {
  const words = tool
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const name = words.join("_");
  return TOOL_WORDS.test(name) && name.length <= 64 ? name : undefined;
}

/** The class the annotations earn: read only when read-only and closed-world, destructive when they say so. */
export function annotatedSafety(annotations: Record<string, unknown> | undefined): Safety {
  const a = annotations ?? {};
  if (a.readOnlyHint === true && a.openWorldHint !== true) return "read";
  return a.destructiveHint === true ? "destructive" : "write";
}

/** The class after config: a setting stricter than the annotations holds; a laxer one only with trust. */
export function safetyOf(tool: UpstreamTool, config: UpstreamConfig): { safety: Safety; note?: string } {
  const earned = annotatedSafety(tool.annotations);
  const setting = config.tools[tool.name];
  if (setting?.safety === undefined) return { safety: earned };
  if (ORDER.indexOf(setting.safety) >= ORDER.indexOf(earned) || setting.trust) return { safety: setting.safety };
  return {
    safety: earned,
    note: `config sets it ${setting.safety}, laxer than its annotations (${earned}), without trust = true`,
  };
}

/** One input per property the schema names: described as the upstream describes it; its type is ajv's to check. */
function inputsOf(schema: Record<string, unknown>): Inputs {
  const inputs: Inputs = {};
  const props = (schema.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
  for (const [name, prop] of Object.entries(props)) {
    const type = prop?.type;
    const spec: InputSpec = {
      type: type === "integer" || type === "number" || type === "boolean" ? type : "string",
      description: typeof prop?.description === "string" ? prop.description : name,
    };
    inputs[name] = spec;
  }
  return inputs;
}

export type RunUpstream = (
  ref: UpstreamRef,
  args: Record<string, unknown>,
  signal: AbortSignal,
) => ReturnType<Capability["run"]>;

/**
 * The capabilities of one upstream's tools, with their shape checks, and the
 * tools left out with why. `taken` are the tool names offered already (the
 * built-ins', a plugin's, another upstream's). With `eager`, each schema is
 * compiled now; else a tool's noted `fault` leaves it out. Refuses nothing.
 */
export function upstreamCapabilities(
  config: UpstreamConfig,
  tools: readonly UpstreamTool[],
  run: RunUpstream,
  taken: ReadonlySet<string>,
  eager = true,
): { caps: Capability[]; validators: ValidatorSet; leftOut: LeftOut[]; notes: LeftOut[] } {
  const caps: Capability[] = [];
  const validators: ValidatorSet = {};
  const leftOut: LeftOut[] = [];
  const notes: LeftOut[] = [];
  const byName = new Map<string, string>();
  for (const tool of tools) {
    const thing = normalisedName(tool.name);
    if (thing === undefined) {
      leftOut.push({ tool: tool.name, reason: "its name has nothing rta's naming rule keeps" });
      continue;
    }
    const toolName = `${config.name}_${thing}`;
    const other = byName.get(toolName);
    if (other !== undefined || taken.has(toolName)) {
      leftOut.push({
        tool: tool.name,
        reason: `its name ${toolName} is taken${other !== undefined ? ` by its tool ${JSON.stringify(other)}` : ""}`,
      });
      continue;
    }
    const control = controlAt(
      {
        // its name is said as it is where no title is given: in its summary, and by `rta explain`
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        annotations: tool.annotations,
      },
      "",
      true,
    );
    if (control !== undefined) {
      leftOut.push({ tool: tool.name, reason: `its definition holds a control character at ${control}` });
      continue;
    }
    // its shape checked now when found now (cheaply: it compiles on its first call); as a discovery kept it, its
    // fault was noted then
    const fault = tool.fault ?? (eager ? schemaFault(tool) : undefined);
    if (fault !== undefined) {
      leftOut.push({ tool: tool.name, reason: fault });
      continue;
    }
    byName.set(toolName, tool.name);
    const { safety, note } = safetyOf(tool, config);
    if (note) notes.push({ tool: tool.name, reason: note });
    // an upstream that echoes the operator's secrets into its definitions tells them to no agent
    const secrets = upstreamSecrets(config);
    const schema = JSON.parse(masked(JSON.stringify(tool.inputSchema), secrets)) as Record<string, unknown>;
    const ref: UpstreamRef = { name: config.name, tool: tool.name, digest: tool.digest, inputSchema: schema };
    const name = `${config.name}.${thing}`;
    const cap: Capability = {
      name,
      area: config.name,
      tool: toolName,
      words: [config.name, thing],
      summary: masked(oneLine(tool.title ?? tool.annotations?.title ?? tool.name), secrets),
      ...(tool.description ? { agentText: masked(tool.description, secrets) } : {}),
      safety,
      inputs: inputsOf(schema),
      result: { shape: "text" },
      examples: [],
      upstream: ref,
      run: (args, ctx) => run(ref, args as Record<string, unknown>, ctx.signal),
    };
    caps.push(cap);
    const validate = validatorFor(tool);
    validators[`${name}#agent`] = validate;
    validators[`${name}#person`] = validate;
  }
  return { caps, validators, leftOut, notes };
}

function oneLine(text: unknown): string {
  return String(text).split(/\r?\n/)[0]?.slice(0, 200) || "an upstream tool";
}
