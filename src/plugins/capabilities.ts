/**
 * A described plugin as capabilities: each declaration becomes a Capability
 * whose run sends `run` to the plugin through its host, with the filled
 * arguments, the descriptors of its path handles, the data dir and the
 * budget. Its answer comes back as the run's result, so the bound, the
 * redaction and the record apply as for a built-in.
 *
 * A path input reaches the plugin only as a descriptor: a file to read is
 * the one the gate opened (a directory is refused, since `..` from a
 * directory's descriptor leads out of it); a file to write is an empty
 * unlinked file the plugin fills, which replaces the gated name (atomically,
 * through the gate's handle) once the plugin answers naming it in `wrote`.
 */
import { closeSync, fstatSync, openSync, readSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ReadHandle, WriteHandle } from "../core/access.ts";
import type { Args, Capability, PluginRef, RunContext } from "../core/capability.ts";
import { define } from "../core/capability.ts";
import type { Validate, ValidatorSet } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";
import type { ResultValue } from "../core/result.ts";
import { type Audience, shapeSchema } from "../core/schema.ts";
import { AUDIENCES, validatorKey } from "../gate/shapeSchemas.ts";
import type { PluginHosts, RunParams } from "./host.ts";
import { checkAnswer, type Described, type PluginDecl } from "./protocol.ts";
import { failed } from "./refusals.ts";

/** The first descriptor a child is handed beside stdin, stdout and stderr. */
const FIRST_FD = 3;

/** The capabilities a checked description declares, run through `hosts`; refuses nothing (checkDescribed did). */
export function pluginCapabilities(d: Described, ref: PluginRef, hosts: PluginHosts): Capability[] {
  return d.capabilities.map((decl) => pluginCapability(decl, ref, hosts));
}

function pluginCapability(decl: PluginDecl, ref: PluginRef, hosts: PluginHosts): Capability {
  const { connection: _, ...declared } = decl;
  const cap: Capability = define({
    ...declared,
    result: declared.result as Capability["result"],
    run: (args: Args, ctx: RunContext) => runPlugin(cap, args, ctx, ref, hosts),
  });
  cap.plugin = ref;
  return cap;
}

/** One call of a plugin capability: its path inputs as descriptors, its answer checked against its declaration. */
async function runPlugin(
  cap: Capability,
  args: Args,
  ctx: RunContext,
  ref: PluginRef,
  hosts: PluginHosts,
): Promise<ResultValue> {
  const sent: Record<string, unknown> = {};
  const paths: RunParams["paths"] = {};
  const fds: number[] = [];
  const written = new Map<string, { fd: number; handle: WriteHandle }>();
  const handles = ctx.paths as Record<string, ReadHandle | WriteHandle | undefined>;
  try {
    for (const [name, spec] of Object.entries(cap.inputs)) {
      const handle = spec.path ? handles[name] : undefined;
      if (handle === undefined) {
        if (args[name] !== undefined && !spec.path) sent[name] = args[name];
        continue;
      }
      const fd = handle.intent === "read" ? fileOf(handle) : blankFile();
      if (handle.intent === "write") written.set(name, { fd, handle });
      paths[name] = { fd: FIRST_FD + fds.length };
      fds.push(fd);
    }
    const params: RunParams = {
      capability: cap.name,
      args: sent,
      paths,
      data_dir: ctx.dataDir,
      budget: Number.isFinite(ctx.budget) ? ctx.budget : null,
    };
    const answer = (await hosts.run(ref, params, fds, ctx.signal, ctx.stillAllowed, ctx.lane)) as {
      value: unknown;
      wrote?: unknown;
    };
    const value = checkAnswer(answer.value, cap, ref.name);
    for (const name of wroteOf(answer.wrote, written, ref)) {
      const w = written.get(name);
      if (w) w.handle.replace(contents(w.fd, hosts.maxResult, ref), modeOf(w.handle));
    }
    return value;
  } finally {
    for (const { fd } of written.values()) closeSync(fd);
  }
}

/** A read input's descriptor: the file the gate opened; refuses fs.notfile a directory. */
function fileOf(handle: ReadHandle): number {
  if (!handle.stat.isFile()) {
    throw new RtaError(
      "fs.notfile",
      `${handle.sent} is not a regular file`,
      "a plugin is handed a file, never a directory",
    );
  }
  return handle.descriptor();
}

/** An empty file that no name leads to, for a plugin to write into. */
function blankFile(): number {
  const path = join(tmpdir(), `rta-plugin-${process.pid}-${crypto.randomUUID()}`);
  const fd = openSync(path, "wx+", 0o600);
  unlinkSync(path);
  return fd;
}

/** The write inputs the answer says it wrote; refuses core.plugin.failed a name that is not one. */
function wroteOf(wrote: unknown, written: Map<string, unknown>, ref: PluginRef): string[] {
  if (wrote === undefined) return [];
  if (!Array.isArray(wrote) || wrote.some((n) => typeof n !== "string" || !written.has(n))) {
    throw failed(ref.name, "its answer's `wrote` names what is not a path input it was handed to write");
  }
  return [...new Set(wrote as string[])];
}

/** What a plugin wrote into `fd`, at most `max` bytes; refuses core.plugin.failed more. */
function contents(fd: number, max: number, ref: PluginRef): Buffer {
  const size = fstatSync(fd).size;
  if (size > max) throw failed(ref.name, `it wrote ${size} bytes, past the bound of ${max}`);
  const out = Buffer.alloc(size);
  let have = 0;
  while (have < size) {
    const n = readSync(fd, out, have, size - have, have);
    if (n === 0) break;
    have += n;
  }
  return out.subarray(0, have);
}

/** The mode a replaced file keeps: its own, or 0644 for a new one. */
function modeOf(handle: WriteHandle): number {
  return handle.existing?.isFile() ? handle.existing.mode & 0o777 : 0o644;
}

/** The stage-2 shape checks of plugin capabilities, for the Catalogue beside the generated ones. Refuses nothing. */
export function pluginValidators(caps: readonly Capability[]): ValidatorSet {
  const out: ValidatorSet = {};
  for (const cap of caps) {
    for (const audience of AUDIENCES) out[validatorKey(cap.name, audience)] = shapeCheck(cap, audience);
  }
  return out;
}

/** What the generated validator of a built-in checks: an object, each known argument's type, no other argument. */
function shapeCheck(cap: Capability, audience: Audience): Validate {
  const props = shapeSchema(cap, audience).properties;
  const check: Validate = (data: unknown) => {
    check.errors = null;
    if (data === null || typeof data !== "object" || Array.isArray(data)) {
      check.errors = [{ instancePath: "", keyword: "type", params: { type: "object" } }];
      return false;
    }
    for (const [name, value] of Object.entries(data)) {
      const type = props[name]?.type as string | undefined;
      if (type === undefined) {
        check.errors = [{ instancePath: "", keyword: "additionalProperties", params: { additionalProperty: name } }];
        return false;
      }
      if (!hasType(value, type)) {
        check.errors = [{ instancePath: `/${name}`, keyword: "type", params: { type } }];
        return false;
      }
    }
    return true;
  };
  return check;
}

function hasType(value: unknown, type: string): boolean {
  if (type === "integer") return Number.isInteger(value);
  if (type === "number") return typeof value === "number" && Number.isFinite(value);
  return typeof value === type;
}
