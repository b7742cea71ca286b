/**
 * The inputs every destination read shares that only the operator sets (in
 * config or a connection): the DNS server names are looked up on, and a file
 * of extra CAs to trust. An agent is never offered either.
 */
import { readFileSync } from "node:fs";
import type { InputSpec } from "../../core/capability.ts";
import { RtaError } from "../../core/errors.ts";

export const dnsServerInput = {
  type: "string",
  description: "the DNS server names are looked up on, host:port (the operator's to set)",
  operatorOnly: true,
  profile: true,
} as const satisfies InputSpec;

export const caFileInput = {
  type: "string",
  description: "a PEM file of extra CAs to trust (the operator's to set)",
  operatorOnly: true,
  profile: true,
} as const satisfies InputSpec;

/** The operator's extra CAs (PEM) from `ca_file`, or undefined when none is set; refuses core.config.invalid a file that cannot be read. */
export function operatorCa(caFile: string | undefined): string | undefined {
  if (caFile === undefined || caFile === "") return undefined;
  try {
    return readFileSync(caFile, "utf8");
  } catch {
    throw new RtaError(
      "core.config.invalid",
      "the operator's CA file cannot be read",
      "the person running rta can fix ca_file in config.toml",
    );
  }
}
