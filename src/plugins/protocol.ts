/**
 * The plugin protocol, version 1 (docs/plugins.md): what a plugin's
 * `describe` answers, checked whole before any capability of it is offered,
 * and what a `run` answers, checked against the declared shape.
 */
import type { ColumnSpec, Example, InputSpec, Safety } from "../core/capability.ts";
import { RtaError } from "../core/errors.ts";
import type { Shape } from "../core/result.ts";

export const PLUGIN_PROTOCOL = 1;

/** A plugin's name: the area prefix of everything it declares. */
export const PLUGIN_NAME = /^[a-z][a-z0-9]*$/;

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
 * core.plugin.invalid and the reason: a value that fails the schema, another
 * name or protocol, over 1,000 capabilities, a capability outside the prefix
 * or declared twice, and a declaration rta would refuse of a built-in.
 */
export function checkDescribed(value: unknown, name: string): Described {
  throw invalid(name, `not yet: ${typeof value}`);
}

/** The refusal that makes a plugin unavailable, with the reason. */
export function invalid(name: string, reason: string): RtaError {
  return new RtaError(
    "core.plugin.invalid",
    `plugin ${name} is unavailable: ${reason}`,
    "the person running rta can run `rta doctor`, and reinstall or remove the plugin",
  );
}
