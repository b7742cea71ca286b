/**
 * The inputs every destination read shares that only the operator sets (in
 * config or a connection): the DNS server names are looked up on, and a file
 * of extra CAs to trust. An agent is never offered either.
 */
import type { InputSpec } from "../../core/capability.ts";

export const dnsServerInput: InputSpec = {
  type: "string",
  description: "the DNS server names are looked up on, host:port (the operator's to set)",
  operatorOnly: true,
  profile: true,
};

export const caFileInput: InputSpec = {
  type: "string",
  description: "a PEM file of extra CAs to trust (the operator's to set)",
  operatorOnly: true,
  profile: true,
};
