/**
 * node:net, loaded at the first ask: loading it costs a process about 2 ms, and
 * a server's start asks nothing of it (an address is classified, a host
 * checked or a socket dialled only in a call or a person's command).
 */
import type * as Net from "node:net";

let loaded: typeof Net | undefined;
function net(): typeof Net {
  loaded ??= require("node:net") as typeof Net;
  return loaded;
}

/** node:net's isIP. */
export function isIP(input: string): number {
  return net().isIP(input);
}

/** node:net's isIPv6. */
export function isIPv6(input: string): boolean {
  return net().isIPv6(input);
}

/** node:net's connect. */
export const connect: typeof Net.connect = ((...args: Parameters<typeof Net.connect>) =>
  net().connect(...args)) as typeof Net.connect;
