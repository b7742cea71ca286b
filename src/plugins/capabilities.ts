/**
 * A described plugin as capabilities: each declaration becomes a Capability
 * whose run sends `run` to the plugin through its host, with the filled
 * arguments, the descriptors of its path handles, the data dir and the
 * budget. Its answer comes back as the run's result, so the bound, the
 * redaction and the record apply as for a built-in.
 */
import type { Capability, PluginRef } from "../core/capability.ts";
import type { ValidatorSet } from "../core/catalogue.ts";
import type { PluginHosts } from "./host.ts";
import type { Described } from "./protocol.ts";

/** The capabilities a checked description declares, run through `hosts`; refuses nothing (checkDescribed did). */
export function pluginCapabilities(d: Described, ref: PluginRef, hosts: PluginHosts): Capability[] {
  throw new Error(`not yet: ${d.name} ${ref.name} ${hosts.opts.maxResult}`);
}

/** The stage-2 shape checks of plugin capabilities, for the Catalogue beside the generated ones. Refuses nothing. */
export function pluginValidators(caps: readonly Capability[]): ValidatorSet {
  throw new Error(`not yet: ${caps.length}`);
}
