/**
 * A person's request for a grant, checked before anything is written: each
 * narrowing must narrow something a call can carry, and --args must be a
 * call the capability would take. The refusals name the flag the person
 * typed, and never widen: a value that cannot be read is refused, never
 * taken as "any".
 */
import type { Capability } from "../../core/capability.ts";
import type { Catalogue } from "../../core/catalogue.ts";
import { type ConfigSource, EMPTY_CONFIG, usable } from "../../core/config.ts";
import { RtaError } from "../../core/errors.ts";
import { hostOf, isHostOrAddress } from "../../core/hostName.ts";
import { checkDeclaration } from "../declaration.ts";
import { fill } from "../fill.ts";
import { checkShape } from "../shape.ts";

/** `--max-uses` as a number, null when left out; refuses anything but a whole number from 1. */
export function maxUsesOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text))
    throw new RtaError(
      "core.input.invalid",
      `--max-uses ${JSON.stringify(text)} is not a whole number`,
      "give --max-uses a whole number from 1",
    );
  const n = Number(text);
  if (n < 1)
    throw new RtaError(
      "core.input.range",
      `--max-uses is ${JSON.stringify(text)}`,
      "give --max-uses a whole number from 1",
    );
  return n;
}

/** The narrowings a grant names, as typed. */
export interface Narrowing {
  record?: string;
  host?: string;
  connection?: string;
  profile?: string;
}

/**
 * Refuses (core.input.invalid) a narrowing no call could match or that would
 * read as none: a path, id or key on a capability without one, an empty value, a
 * connection without its profile.
 */
export function checkNarrowing(target: string, cap: Capability | undefined, n: Narrowing): void {
  if (n.record !== undefined && cap?.record === undefined) {
    throw new RtaError(
      "core.input.invalid",
      cap
        ? `${target} takes no path, id or key to narrow a grant to`
        : `${target} is an area: a grant is narrowed to one path, id or key of one capability`,
      cap ? `leave ${JSON.stringify(n.record)} out` : `name the capability, e.g. rta grant allow ${target}.<verb> ...`,
    );
  }
  // An empty narrowing would be read as none at all: a grant for every path, id or host.
  for (const [flag, value] of [
    [`the ${cap?.record ?? "value"}`, n.record],
    ["--host", n.host],
    ["--connection", n.connection],
    ["--profile", n.profile],
  ] as const) {
    if (value !== undefined && value.trim() === "")
      throw new RtaError(
        "core.input.invalid",
        `${flag} is empty`,
        flag.startsWith("--") ? `give ${flag} a value, or leave it out` : `give ${flag} to narrow to, or leave it out`,
      );
  }
  // A call reaches a connection only through a profile, and naming a profile needs a grant for it: a grant
  // naming a connection and no profile would match no call at all.
  if (n.connection !== undefined && n.profile === undefined)
    throw new RtaError(
      "core.input.invalid",
      "--connection narrows a grant for calls through a profile, and names none",
      "give --profile too: the profile whose connection it is",
    );
}

/**
 * A grant's --host as the host alone; refuses (core.input.invalid) it on a
 * target that reaches no host, and a URL, a port or anything not a host
 * name or address, saying the host alone where one can be read from it.
 */
export function grantHost(catalogue: Catalogue, target: string, cap: Capability | undefined, value: string): string {
  const caps = cap ? [cap] : catalogue.all().filter((c) => c.area === target);
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

/**
 * The arguments `--args` names, checked as an agent's call would be and
 * filled with defaults, as the gate sees them; refuses text that is not JSON,
 * an area in place of a capability, and what the call's own checks refuse.
 */
export function boundArgs(
  catalogue: Catalogue,
  target: string,
  cap: Capability | undefined,
  text: string,
  configSource: ConfigSource,
): Record<string, unknown> {
  if (!cap)
    throw new RtaError(
      "core.input.invalid",
      "--args binds a grant to one call of one capability, not an area",
      `name a capability of ${target}`,
    );
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
  const { sent } = checkDeclaration(cap, call, checkShape(cap, call, catalogue), config);
  return fill(cap, sent, config);
}
