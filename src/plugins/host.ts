/**
 * Plugin processes. One long-lived child per plugin per server, started on
 * first use and started again when it died, takes the calls with no path
 * input, one at a time; a call with path inputs runs in a fresh child started
 * for it with the gate's descriptors as fds 3, 4, ... Every child runs with
 * no arguments, cwd `/` and a small fixed environment, never the server's.
 */
import type { PluginRef } from "../core/capability.ts";
import type { Described } from "./protocol.ts";

export interface HostOptions {
  /** the server's hard result bound (--max-result): an answer declaring more is refused from its header */
  maxResult: number;
  /** how long a cancelled call may take to answer before its child is killed; 2 s */
  graceMs?: number;
}

/** One `run` request's params, as sent. */
export interface RunParams {
  capability: string;
  args: Record<string, unknown>;
  paths: Record<string, { fd: number }>;
  data_dir: string;
  budget: number;
}

/** Spawns the plugin, asks `describe` under the bounds, and stops it; refuses core.plugin.invalid with the reason. */
export function describePlugin(file: string, name: string): Promise<Described> {
  return Promise.reject(new Error(`not yet: ${file} ${name}`));
}

/** The children of every plugin a server has called, closed with it. */
export class PluginHosts {
  constructor(readonly opts: HostOptions) {}

  /**
   * Sends one `run` and resolves the answer's value, unchecked (the caller
   * checks its shape). `fds` are handed to a fresh child as 3, 4, ...; none
   * goes to the long-lived one. Refuses core.result.toolarge from a header
   * past the bound, core.call.cancelled once `signal` aborts, a plugin error
   * under its prefix, and core.plugin.failed for anything else.
   */
  run(ref: PluginRef, params: RunParams, fds: readonly number[], signal: AbortSignal): Promise<unknown> {
    return Promise.reject(new Error(`not yet: ${ref.name} ${params.capability} ${fds.length} ${signal.aborted}`));
  }

  /** Kills every child; calls in flight fail. */
  close(): void {}
}
