/**
 * The capability declaration. A capability is declared once, as data plus a
 * `run` function; its CLI command, MCP tool, `rta explain` card and docs row
 * are projections of this one value.
 */
import type { NetAccess, Offsite, PathIntent, ReadHandle, Spawn, WriteHandle } from "./access.ts";
import type { PluginRef, UpstreamRef } from "./capabilitySource.ts";
import type { Clock, HostFiles } from "./deps.ts";
import type { Code } from "./errors.ts";
import type { ResultValue, Scalar, Shape } from "./result.ts";

export type { PluginRef, UpstreamRef } from "./capabilitySource.ts";

/** What an agent needs before a call: `read` is free unless it reaches or reveals. */
export type Safety = "read" | "write" | "destructive";

export type InputType = "string" | "integer" | "number" | "boolean";

export interface InputSpec {
  type: InputType;
  /** what the input means, for the schema, the card and `--help` */
  description: string;
  required?: boolean;
  default?: Scalar;
  /** the values the declaration takes; anything else is `core.input.option` */
  options?: readonly string[];
  /** inclusive bounds; a number outside is `core.input.range` */
  range?: readonly [number, number];
  /** a path argument: it goes through the path gate, opened to read (it must exist) or to write (its parent must) */
  path?: PathIntent;
  /** for a path to write: the boolean input that asks for missing parent directories to be made */
  parentsFrom?: string;
  /** only the operator sets it (config, connection, CLI); absent from the agent's schema */
  operatorOnly?: boolean;
  /** an operator-only base URL of an offsite read's service: `rta config check` holds config's value to it */
  baseUrl?: boolean;
  /**
   * a boolean switch that widens what a fenced input reaches (a plugin's "all namespaces" beside `namespace`):
   * the input it widens; set true under a profile that fences that input, the call is core.profile.fenced
   */
  widens?: string;
  /** on the CLI it is read from stdin when left out; over MCP it is required */
  fromPipe?: boolean;
  /** a secret (kv.set's value): masked in the record and errors; on the CLI read from stdin only, never an option */
  secret?: boolean;
  /** a profile may set it */
  profile?: boolean;
  /** CLI projection: an argument in position rather than an `--option` */
  positional?: boolean;
}

export interface ColumnSpec {
  name: string;
  doc: string;
  /**
   * how the CLI renders this column for a person on a terminal: a number as bytes, percent or seconds; "time" an
   * ISO 8601 text as how long ago (or how soon) it is, "3d ago". Piped and in --json the value stays as it is.
   */
  unit?: "bytes" | "percent" | "seconds" | "time";
}

export interface Example {
  /** the command line, starting with `rta` */
  command: string;
  note: string;
}

/** Declared inputs, by name. */
export type Inputs = Record<string, InputSpec>;

/** The value an input of this declaration holds: one of its options, or its type. */
type ValueOf<S extends InputSpec> = S extends { options: readonly (infer O)[] } ? O : TypeValue<S["type"]>;
type TypeValue<T extends InputType> = T extends "string" ? string : T extends "boolean" ? boolean : number;

/** An input the run always has: required (stage 3 refuses a call without it), defaulted, or read from a pipe. */
type Given<S extends InputSpec> = S extends { required: true }
  ? true
  : S extends { default: Scalar }
    ? true
    : S extends { fromPipe: true }
      ? true
      : false;

/** A run's arguments, typed from the declared inputs. */
export type ArgsOf<I extends Inputs> = {
  [K in keyof I]: Given<I[K]> extends true ? ValueOf<I[K]> : ValueOf<I[K]> | undefined;
};

/** The handle the path gate hands a run for each path input: a write input's, to write; a read input's, to read. */
export type PathsOf<I extends Inputs> = {
  [K in keyof I as I[K] extends { path: PathIntent } ? K : never]: I[K] extends { path: "write" }
    ? Given<I[K]> extends true
      ? WriteHandle
      : WriteHandle | undefined
    : Given<I[K]> extends true
      ? ReadHandle
      : ReadHandle | undefined;
};

export interface RunContext<I extends Inputs = Inputs> {
  signal: AbortSignal;
  /**
   * A writer for a table or log produced row by row. It measures each row as
   * it comes and, for an agent, keeps only what the model will be sent, so a
   * large listing is never held whole; it refuses once the hard bound is passed.
   * Left out, the columns are the declared result's.
   */
  rows(columns?: readonly string[], kind?: "table" | "log"): RowWriter;
  /** each path input, opened by the path gate before the run (stage 10); a walk's files are opened through its handle */
  paths: PathsOf<I>;
  /** bytes of answer the caller is sent at most (an agent's model budget; unbounded for a person) */
  budget: number;
  /** the network, held to what this call may reach: who calls and what its grant names stay the gate's */
  net: NetAccess;
  /** the fixed service a declared `offsite` read asks, at a base URL the operator set (an operator-only input's) */
  offsite: Offsite;
  /** a system tool, run from an argument array under the call's signal and a time limit */
  spawn: Spawn;
  clock: Clock;
  /** where the host's own figures are read (/proc, /etc/passwd, /etc/os-release) */
  host: HostFiles;
  /** rta's data dir, where an area that keeps records of its own (notes) keeps them by default */
  dataDir: string;
  /**
   * the age identity file that opens the kv store (RTA_KV_IDENTITY's, else `<config dir>/identity.txt`; the file may
   * be missing); undefined in a server started with neither RTA_KV_IDENTITY nor --kv, which opens none
   */
  identityFile: string | undefined;
  /**
   * A text as the caller will be shown it: an agent is told credentials
   * masked and rta's own places renamed. `before` is what stands before the
   * text where it was read (the lines above a line: see LinesBefore), since a
   * credential's value may stand on the line after its name. A capability
   * that picks lines by what the caller sent (a pattern, a filter) matches it
   * on this, and shows it, so whether a line is picked never depends on
   * something the caller cannot see: else a pattern guessed one character at
   * a time would read it out. With `cut`, the text was cut short at its end
   * and loses what may be the head of a place. Left out, a text is shown as it is.
   */
  shown?: (text: string, before?: string, cut?: boolean) => string;
  /**
   * Told what a long piece of work (a walk) has seen so far, as often as it
   * likes: the front decides whether and when a person is shown it. Left out
   * for an agent, and for a person whose output is piped.
   */
  progress?: (seen: Seen) => void;
  /**
   * Refuses (core.lock.locked) once a person has locked what the call is,
   * or its agent, since the gate let it through; once the grant it spent
   * was revoked (core.grant.required) or the team ceiling would refuse it
   * now (core.grant.ceiling). A run that waits before it acts (a plugin's
   * call queued behind another of the same plugin, for as long as that one
   * takes) asks it once the wait is over, so a lock set, a grant taken back
   * or a policy tightened meanwhile stops it as it would a call made then.
   * Left out for a person.
   */
  stillAllowed?: () => void;
  /**
   * Which caller's calls may wait on one another, as an opaque name (one per
   * agent): a run that serialises calls (a plugin's long-lived child) keeps
   * one queue per lane, so one agent's call that hangs holds up no other's.
   * Left out for a person.
   */
  lane?: string;
}

/** What a walk has seen so far: entries, and bytes of the files among them. */
export interface Seen {
  files: number;
  bytes: number;
}

export interface RowWriter {
  add(row: Scalar[]): void;
  /** rows added from now on would only be counted (a table cut for the model): count them instead of making them */
  full(): boolean;
  /** the result; `total` when there are more rows than were written */
  finish(total?: number): ResultValue;
}

export type Args = Record<string, Scalar | undefined>;

export interface CapabilityDecl<I extends Inputs = Inputs> {
  /** `area.thing[.action]`, lowercase */
  name: string;
  summary: string;
  /** what an agent should know beyond the summary */
  agentText?: string;
  /** words a person would search for that the name and summary lack */
  searchWords?: readonly string[];
  safety: Safety;
  /** the input that names a destination the caller chooses; such a read costs a grant */
  reaches?: string;
  /** a free read that leaves the machine for a fixed service, named here */
  offsite?: string;
  /** the answer is a stored secret; costs a grant */
  reveals?: boolean;
  /** the input naming the one record a grant can be narrowed to (a note id, a kv key, a pid) */
  record?: string;
  /** roots this capability's paths may also use, beside the server's (log.tail: /var/log) */
  defaultRoots?: readonly string[];
  inputs: I;
  /** columns of a table or log; fields (dotted paths) of an object that carry a unit */
  result: {
    shape: Shape;
    columns?: readonly ColumnSpec[];
    fields?: readonly ColumnSpec[];
    /** a table with no rows is said with this code's exit status on the CLI (fs.grep: none matched, as grep) */
    whenEmpty?: Code;
  };
  examples: readonly Example[];
  run(args: ArgsOf<I>, ctx: RunContext<I>): Promise<ResultValue>;
}

export interface Capability<I extends Inputs = Inputs> extends CapabilityDecl<I> {
  area: string;
  upstream?: UpstreamRef;
  /** set for a capability a plugin declared; a built-in has none (the rta binary is its artifact) */
  plugin?: PluginRef;
  /** the MCP tool name, `area_thing_action` */
  tool: string;
  /** the CLI words, `["area", "thing", "action"]` */
  words: readonly string[];
}

const NAME = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9-]*){1,2}$/;
const INPUT_NAME = /^[a-z][a-z0-9_]*$/;

/** The input that names a profile, added to every capability a profile could change. */
export const PROFILE_INPUT = "profile";

/**
 * Declares a capability. Refuses (throws at load time, so a test catches it) a
 * malformed name, a `reaches` that names no input, a path to write on a read,
 * a `widens` on a non-boolean input or naming no input, an option list or range on
 * an input of the wrong type, and a default the declaration itself would refuse.
 */
export function define<const I extends Inputs>(declared: CapabilityDecl<I>): Capability<I> {
  const decl = withProfileInput(declared as unknown as CapabilityDecl) as unknown as CapabilityDecl<I>;
  if (!NAME.test(decl.name)) throw new Error(`capability name ${decl.name} is not area.thing[.action]`);
  for (const [name, input] of Object.entries(decl.inputs as Inputs)) {
    if (!INPUT_NAME.test(name)) throw new Error(`${decl.name}: input name ${name} is not snake_case`);
    if (input.options && input.type !== "string") throw new Error(`${decl.name}.${name}: options need a string input`);
    if (input.range && input.type !== "integer" && input.type !== "number") {
      throw new Error(`${decl.name}.${name}: a range needs a numeric input`);
    }
    // a path to write changes what is there: under a read, an agent would replace a file with no grant
    if (input.path === "write" && decl.safety === "read") {
      throw new Error(`${decl.name}.${name}: a path to write needs a write or destructive capability, not a read`);
    }
    if (input.secret && (input.type !== "string" || !input.fromPipe || input.positional || input.options))
      throw new Error(`${decl.name}.${name}: a secret is a string read from a pipe, with no options, never positional`);
    if (input.widens !== undefined && (input.type !== "boolean" || !(input.widens in decl.inputs))) {
      throw new Error(`${decl.name}.${name}: widens needs a boolean input naming another input`);
    }
    if (input.default !== undefined) {
      if (input.options && !input.options.includes(String(input.default))) {
        throw new Error(`${decl.name}.${name}: default is not one of its options`);
      }
      if (input.range && typeof input.default === "number") {
        const [lo, hi] = input.range;
        if (input.default < lo || input.default > hi) throw new Error(`${decl.name}.${name}: default out of range`);
      }
    }
  }
  if (decl.reaches !== undefined && !(decl.reaches in decl.inputs)) {
    throw new Error(`${decl.name}: reaches names no input`);
  }
  if (decl.record !== undefined && !(decl.record in decl.inputs)) {
    throw new Error(`${decl.name}: record names no input`);
  }
  const words = decl.name.split(".");
  return { ...decl, area: words[0] as string, tool: words.join("_").replaceAll("-", "_"), words };
}

/** A capability with an input a profile may set takes a `profile` argument naming one. */
function withProfileInput(decl: CapabilityDecl): CapabilityDecl {
  if (!Object.values(decl.inputs).some((spec) => spec.profile === true)) return decl;
  if (PROFILE_INPUT in decl.inputs)
    throw new Error(`${decl.name}: "${PROFILE_INPUT}" is the name of the profile argument`);
  const profile: InputSpec = {
    type: "string",
    description: "a profile the operator set up for this area; naming one needs a grant issued for that profile",
  };
  return { ...decl, inputs: { ...decl.inputs, [PROFILE_INPUT]: profile } };
}

/**
 * True for a read that aims nowhere: it changes nothing, names no destination, leaves the machine for no service and
 * reveals no secret. An agent's call of one that spends no grant (it names no profile) has no effect outside its
 * answer, so the record needs no line before it runs: its outcome line, written before it is answered, is the call.
 */
export function aimsNowhere(cap: Capability): boolean {
  return cap.safety === "read" && cap.reaches === undefined && cap.offsite === undefined && cap.reveals !== true;
}

/** True when an agent needs a grant to call it: anything above read, and reads that reach or reveal. */
export function needsGrant(cap: Capability): boolean {
  return cap.safety !== "read" || cap.reaches !== undefined || cap.reveals === true;
}
