/**
 * Every capability becomes `rta <area> <thing> [action]`, generated from its
 * declaration: positional inputs become arguments, the rest `--options`, and
 * each command takes `--json`. Values are passed to the pipeline as typed as
 * the command line allows; the pipeline, not this file, decides what is valid.
 */
import type { Command } from "commander";
import { person } from "../core/call.ts";
import type { Capability, InputSpec } from "../core/capability.ts";
import { asRtaError, RtaError } from "../core/errors.ts";
import { runCall } from "../gate/pipeline.ts";
import { askSecret } from "./askSecret.ts";
import { cliWords } from "./cliWords.ts";
import type { Cli } from "./factory.ts";
import { PIPE_LIMIT_BYTES } from "./io.ts";
import { printResult } from "./printResult.ts";
import { progressLine, WAITING_TICK_MS } from "./progress.ts";
import { reportError } from "./report.ts";
import { resultStatus } from "./resultStatus.ts";

/**
 * Adds every capability's command, or only those of `area` when the command line names one; returns the groups made
 * for rta's own capabilities (not an upstream's), whose help lines wait for every command of theirs (describeGroup).
 */
export function addCapabilityCommands(program: Command, cli: Cli, area?: string): [Command, string][] {
  const groups = new Map<string, Command>();
  const ours: [Command, string][] = [];
  for (const cap of cli.catalogue.all()) {
    if (area !== undefined && cap.area !== area) continue;
    let parent = program;
    for (let depth = 0; depth < cap.words.length - 1; depth++) {
      const key = cap.words.slice(0, depth + 1).join(" ");
      let group = groups.get(key);
      if (!group) {
        group = parent.command(cap.words[depth] as string);
        // an upstream's area is named in config, not by rta: its help says whose tools these are
        if (cap.upstream) group.description(`the tools of upstream MCP server ${key} (see rta upstream list)`);
        else ours.push([group, key]);
        groups.set(key, group);
      }
      parent = group;
    }
    capabilityCommand(parent.command(cap.words[cap.words.length - 1] as string), cap, cli);
  }
  return ours;
}

/** Fills in a leaf command made by its parent, so it inherits the program's output and exit handling. */
function capabilityCommand(cmd: Command, cap: Capability, cli: Cli): void {
  cmd.description(cap.summary);
  const positional: string[] = [];
  for (const [name, spec] of Object.entries(cap.inputs)) {
    // help spells an input as a person types it (`--from-line <from-line>`), never as an agent sends it
    const word = name.replaceAll("_", "-");
    if (spec.positional) {
      positional.push(name);
      const required = spec.required && !spec.fromPipe;
      cmd.argument(required ? `<${word}>` : `[${word}]`, helpText(spec));
    } else if (spec.secret) {
      // a secret is read from stdin only: an option's value stays in the shell's history and in `ps`
      cmd.addHelpText(
        "after",
        `\nThe ${word} is read from stdin; at a terminal it is asked for, and not shown as it is typed.`,
      );
    } else {
      const flag = `--${word}`;
      cmd.option(spec.type === "boolean" ? flag : `${flag} <${word}>`, helpText(spec));
      if (spec.type === "boolean") cmd.option(`--no-${name.replaceAll("_", "-")}`);
    }
  }
  cmd.option("--json", "print JSON");
  cmd.action(async (...params: unknown[]) => {
    const opts = params[positional.length] as Record<string, unknown>;
    const raw: Record<string, unknown> = {};
    positional.forEach((name, i) => {
      if (params[i] !== undefined) raw[name] = params[i];
    });
    for (const name of Object.keys(cap.inputs)) {
      const key = camel(name);
      if (opts[key] !== undefined) raw[name] = opts[key];
    }
    cli.status = await runCapability(cap, raw, opts.json === true, cli);
  });
}

async function runCapability(cap: Capability, raw: Record<string, unknown>, json: boolean, cli: Cli): Promise<number> {
  const { io } = cli;
  const args: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(raw)) {
    const spec = cap.inputs[name];
    args[name] = spec ? fromText(value, spec) : value;
  }
  try {
    for (const [name, spec] of Object.entries(cap.inputs)) {
      if (!spec.fromPipe || args[name] !== undefined) continue;
      // a secret is taken as it came, but for the final newline a one-line value ends with (the capability's to drop)
      if (!io.stdinIsTTY)
        args[name] = spec.secret ? await io.readStdin(PIPE_LIMIT_BYTES) : (await io.readStdin(PIPE_LIMIT_BYTES)).trim();
      else if (spec.secret) args[name] = askSecret(io, name.replaceAll("_", " "));
      if (spec.secret && args[name] === "")
        throw new RtaError(
          "core.input.missing",
          `the ${name.replaceAll("_", " ")} is read from stdin, and none came`,
          "pipe it in (`< file`), or run the command at a terminal to type it unseen",
        );
    }
  } catch (err) {
    return reportError(io, asRtaError(err), json);
  }
  const deps = cli.deps();
  const shown = progressLine(io, () => cli.clock.now());
  // a read that asks a service says, on a terminal, what it is waiting on once it has waited a second
  const service = cap.offsite;
  const ticking = shown && service ? setInterval(() => shown.waiting(service), WAITING_TICK_MS) : undefined;
  const outcome = await runCall({ capability: cap.name, args, origin: person }, cli.catalogue, deps, {
    onUnexpected: (thrown) => {
      if (io.env.RTA_DEBUG) io.err(`${(thrown as Error)?.stack ?? String(thrown)}\n`);
    },
    progress: shown?.tell,
  }).finally(() => clearInterval(ticking));
  shown?.clear();
  if (!outcome.ok) {
    const { error } = outcome;
    // a refusal names what to change as a person types it: `--from-line 15`, `rta fs list`
    const message = cliWords(error.message, cap, cli.catalogue);
    const hint = error.hint === undefined ? undefined : cliWords(error.hint, cap, cli.catalogue);
    const said = message === error.message && hint === error.hint ? error : new RtaError(error.code, message, hint);
    return reportError(io, said, json);
  }
  const printed = printResult(io, outcome.value, json, { cap, catalogue: cli.catalogue, now: cli.clock.now() });
  return Math.max(printed, resultStatus(io, cap, outcome.value));
}

/** A command-line string as the input's type, where it reads as one; otherwise left as text for the shape stage to refuse. */
function fromText(value: unknown, spec: InputSpec): unknown {
  if (typeof value !== "string") return value;
  if (spec.type === "integer" && /^-?\d+$/.test(value)) return Number(value);
  if (spec.type === "number" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value);
  return value;
}

function helpText(spec: InputSpec): string {
  const extra: string[] = [];
  if (spec.options) extra.push(spec.options.join("|"));
  if (spec.range) extra.push(`${spec.range[0]}..${spec.range[1]}`);
  if (spec.default !== undefined) extra.push(`default ${spec.default}`);
  if (spec.fromPipe) extra.push("read from stdin when left out");
  return extra.length ? `${spec.description} (${extra.join(", ")})` : spec.description;
}

function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}
