/**
 * The plugin protocol, version 1 (docs/plugins.md): what a plugin's
 * `describe` answers, checked whole before any capability of it is offered,
 * and what a `run` answers, checked against the declared shape.
 */

import {
  type Capability,
  type ColumnSpec,
  define,
  type Example,
  type InputSpec,
  type Safety,
} from "../core/capability.ts";
import { isNeverATool } from "../core/catalogue.ts";
import { controlAt } from "../core/controlChars.ts";
import type { ResultValue, Shape } from "../core/result.ts";
import { checkDescribed as describedShape, checkResult as resultShape } from "../generated/plugins.js";
import { failed, invalid } from "./refusals.ts";
import { PLUGIN_NAME } from "./registry.ts";

export const PLUGIN_PROTOCOL = 1;

/** An input as a plugin declares it: a built-in's fields (InputSpec), `widens` among them. */
export type PluginInput = InputSpec;

/** One capability as a plugin declares it: a built-in's declaration without `run`, plus the connection it takes. */
export interface PluginDecl {
  name: string;
  summary: string;
  agentText?: string;
  searchWords?: string[];
  safety: Safety;
  reaches?: string;
  offsite?: string;
  reveals?: boolean;
  record?: string;
  inputs: Record<string, PluginInput>;
  result: { shape: Shape; columns?: ColumnSpec[]; fields?: ColumnSpec[]; whenEmpty?: string };
  examples: Example[];
  /** the area whose connection (config [connections.*]) it takes: its own plugin's name */
  connection?: string;
}

/** What `describe` answers. */
export interface Described {
  name: string;
  version: string;
  protocol: number;
  capabilities: PluginDecl[];
}

/** Past either, a describe makes the plugin unavailable. */
export const DESCRIBE_MAX_BYTES = 1024 * 1024;
export const DESCRIBE_MAX_CAPABILITIES = 1000;

/**
 * Checks a describe answer from the plugin installed as `name`. Refuses with
 * core.plugin.invalid and the reason: a value over 1 MiB or that fails the
 * schema, another name or protocol, over 1,000 capabilities, a capability
 * outside the prefix, declared twice or never a tool, and a declaration rta
 * would refuse of a built-in (see core/capability.ts define()).
 */
export function checkDescribed(value: unknown, name: string): Described {
  if (!PLUGIN_NAME.test(name)) throw invalid(name, "its name is not lowercase letters and digits");
  // before anything walks it: JSON.stringify of a value nested 100,000 deep overflows the stack
  const unfit = unfitValue(value, DESCRIBE_MAX_DEPTH);
  if (unfit === "deep") throw invalid(name, `its describe nests past ${DESCRIBE_MAX_DEPTH} levels`);
  if (unfit === "number") throw invalid(name, "its describe holds a number that is not finite");
  if (value !== null && typeof value === "object" && Array.isArray((value as Described).capabilities)) {
    const count = (value as Described).capabilities.length;
    if (count > DESCRIBE_MAX_CAPABILITIES) {
      throw invalid(name, `it declares ${count} capabilities, past the bound of ${DESCRIBE_MAX_CAPABILITIES}`);
    }
  }
  const bytes = Buffer.byteLength(JSON.stringify(value) ?? "");
  if (bytes > DESCRIBE_MAX_BYTES) throw invalid(name, `its describe is ${bytes} bytes, past the bound of 1 MiB`);
  if (!describedShape(value)) throw invalid(name, `its describe fails the schema: ${schemaFault(describedShape)}`);
  const d = value as Described;
  const control = controlAt(d, "");
  if (control !== undefined) throw invalid(name, `its describe holds a control character at ${control}`);
  if (d.protocol !== PLUGIN_PROTOCOL) throw invalid(name, `it speaks protocol ${d.protocol}, not ${PLUGIN_PROTOCOL}`);
  if (d.name !== name) throw invalid(name, `it calls itself ${JSON.stringify(d.name)}`);
  const tools = new Set<string>();
  for (const decl of d.capabilities) {
    const area = decl.name.split(".")[0];
    if (area !== name) throw invalid(name, `${decl.name} is outside its prefix ${name}.`);
    if (isNeverATool(decl.name)) throw invalid(name, `${decl.name} is a name that is never a tool`);
    const tool = decl.name.replaceAll(".", "_").replaceAll("-", "_");
    if (tools.has(tool)) throw invalid(name, `${decl.name} is declared twice`);
    tools.add(tool);
    checkDecl(decl, name);
  }
  return d;
}

/** Past this many levels of arrays and objects a describe is refused: a declaration needs a few, and JSON.stringify fails on a deep one. */
export const DESCRIBE_MAX_DEPTH = 32;

/** What define() refuses of a built-in, and what only a plugin may not declare. */
function checkDecl(decl: PluginDecl, name: string): void {
  if (decl.connection !== undefined && decl.connection !== name) {
    throw invalid(name, `${decl.name} takes the connection of ${decl.connection}, not its own area's`);
  }
  // rta's own codes are the gate's: an empty table said as core.lock.locked would exit as a lock's refusal
  if (decl.result.whenEmpty !== undefined && !underPrefix(decl.result.whenEmpty, name)) {
    throw invalid(name, `${decl.name} names ${decl.result.whenEmpty}, a code outside its prefix`);
  }
  for (const [input, spec] of Object.entries(decl.inputs)) {
    if (spec.parentsFrom !== undefined && decl.inputs[spec.parentsFrom]?.type !== "boolean") {
      throw invalid(name, `${decl.name}.${input}: parentsFrom names no boolean input`);
    }
    if (spec.widens !== undefined && spec.widens === input) {
      throw invalid(name, `${decl.name}.${input}: an input cannot widen itself`);
    }
  }
  try {
    asDeclared(decl);
  } catch (err) {
    throw invalid(name, (err as Error).message);
  }
}

/** A declaration as define() takes it, with a run that is never called. Throws what define() refuses. */
function asDeclared(decl: PluginDecl): Capability {
  const { connection: _, ...rest } = decl;
  return define({
    ...rest,
    result: rest.result as Capability["result"],
    run: () => Promise.reject(new Error("never run")),
  });
}

/** Whether `code` is under the plugin's prefix: `note.notfound` for note. */
export function underPrefix(code: string, plugin: string): boolean {
  return code.startsWith(`${plugin}.`) && /^[a-z][a-z0-9]*(\.[a-z][a-z0-9-]*)+$/.test(code) && code.length <= 128;
}

/**
 * Checks a `run` answer's value against the schema and what `cap` declared:
 * its shape, and a table's or log's columns when they are declared. Warnings
 * must carry codes under the plugin's prefix. Refuses core.plugin.failed, saying what is wrong.
 */
export function checkAnswer(value: unknown, cap: Pick<Capability, "name" | "result">, plugin: string): ResultValue {
  const unfit = unfitValue(value, ANSWER_MAX_DEPTH);
  if (unfit === "deep")
    throw failed(plugin, `its answer to ${cap.name} holds a value nested more than ${ANSWER_MAX_DEPTH} deep`);
  if (unfit === "number") throw failed(plugin, `its answer to ${cap.name} holds a number that is not finite`);
  let fits: boolean;
  try {
    fits = resultShape(value) as boolean;
  } catch {
    fits = false; // nested past what a check can walk
  }
  if (!fits) throw failed(plugin, `its answer to ${cap.name} is not a result value: ${schemaFault(resultShape)}`);
  const v = value as ResultValue;
  if (v.type !== cap.result.shape) {
    throw failed(plugin, `its answer to ${cap.name} is a ${v.type}, not the ${cap.result.shape} it declared`);
  }
  if ((v.type === "table" || v.type === "log") && cap.result.columns) {
    const declared = cap.result.columns.map((c) => c.name);
    if (v.columns.length !== declared.length || v.columns.some((c, i) => c !== declared[i])) {
      throw failed(plugin, `its answer to ${cap.name} has columns other than those it declared`);
    }
    if (v.rows.some((row) => row.length !== declared.length)) {
      throw failed(plugin, `its answer to ${cap.name} has a row that does not match its columns`);
    }
    if (v.total < v.rows.length) throw failed(plugin, `its answer to ${cap.name} counts fewer rows than it sent`);
  }
  const warnings = "warnings" in v ? v.warnings : undefined;
  for (const w of warnings ?? []) {
    if (!underPrefix(w.code, plugin))
      throw failed(plugin, `its answer to ${cap.name} warns with ${w.code}, outside its prefix`);
  }
  return v;
}

/** How deep a run answer's value may nest, arrays and objects counted: a tree 100 levels deep is 200. */
export const ANSWER_MAX_DEPTH = 256;

/**
 * What of `value` no describe or result may hold, walked without recursion:
 * arrays and objects nested past `max` levels ("deep": what renders, redacts
 * and sends a result recurses, and JSON.stringify of a deep describe
 * overflows the stack) or a number JSON cannot say ("number": 1e999 parses to
 * Infinity; the CLI would show it, the agent would be sent null). "deep" is
 * said over "number"; undefined when it holds neither.
 */
function unfitValue(value: unknown, max: number): "deep" | "number" | undefined {
  let said: "number" | undefined;
  const todo: [unknown, number][] = [[value, 1]];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [v, depth] = next;
    if (typeof v === "number" && !Number.isFinite(v)) said = "number";
    if (v === null || typeof v !== "object") continue;
    if (depth > max) return "deep";
    for (const child of Object.values(v)) todo.push([child, depth + 1]);
  }
  return said;
}

/** ajv's first fault, as `/capabilities/0/name must match pattern ...`. */
function schemaFault(check: { errors?: { instancePath: string; message?: string }[] | null }): string {
  const first = check.errors?.[0];
  if (!first) return "it is not an object";
  return `${first.instancePath || "the value"} ${first.message ?? "is not valid"}`.slice(0, 300);
}
