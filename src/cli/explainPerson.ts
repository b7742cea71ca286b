/**
 * What `rta explain` says of a name that is never a tool (`kv.copy`, `keys_export`, `grant`, `mcp.token.new`): the
 * person's command it is, in the command line's own words (its description, arguments and options, or a group's
 * verbs), and that no server offers it. The person's command groups are built here as the command line builds them,
 * so each verb's words are written once, where its command is declared.
 */
import type { ChalkInstance } from "chalk";
import { Command } from "commander";
import { isNeverATool, NEVER_A_TOOL } from "../core/catalogue.ts";
import { RtaError } from "../core/errors.ts";
import { closest, didYouMean } from "../core/suggest.ts";
import type { Cli } from "./factory.ts";

/** A never-a-tool name's card, as `rta explain NAME --json` prints it. */
export interface PersonCard {
  /** the dotted name, `kv.copy` */
  name: string;
  never_a_tool: true;
  /** what it does, its command's own description; for a name kept with no command, what that means */
  summary: string;
  /** `rta kv copy <name>`, or null for a name kept with no command here */
  command: string | null;
  tool: null;
  /** its arguments and options, as its --help lists them */
  inputs: { name: string; kind: "argument" | "option"; description: string; required: boolean }[];
  /** a group's verbs (`rta explain grant`), each with what it does */
  verbs?: { name: string; command: string; summary: string }[];
}

/** What is said under the title of every never-a-tool card. */
export const NEVER_A_TOOL_NOTE =
  "The person's, at the terminal: never a tool. No server offers it, on any transport or with any flag, and an agent that names it is answered as an unknown tool.";

/**
 * The card of `name` when it is never a tool (dotted or a tool name), or undefined when it is not one. Refuses
 * (core.tool.unknown) a name under a never-a-tool group that names no command of it, with the nearest verbs.
 */
export async function personCard(cli: Cli, name: string): Promise<PersonCard | undefined> {
  if (!isNeverATool(name)) return undefined;
  const dotted = name.includes(".") ? name : name.replaceAll("_", ".");
  const words = dotted.split(".");
  const program = await personCommands(cli);
  let at: Command = program;
  const path: string[] = [];
  for (const word of words) {
    const next = visibleVerbs(at).find((c) => c.name() === word);
    if (!next) {
      if (kept(dotted)) return keptCard(dotted);
      const group = path.length === 0 ? undefined : path.join(".");
      const near = closest(
        word,
        visibleVerbs(at).map((c) => c.name()),
      ).map((verb) => [...path, verb].join("."));
      throw new RtaError(
        "core.tool.unknown",
        `no command is named ${JSON.stringify(name)}`,
        `${didYouMean(near, (n) => `rta explain ${n}`)} ${group ? `run \`rta explain ${group}\` to list its verbs` : "run `rta explain` to list them"}`.trimStart(),
      );
    }
    at = next;
    path.push(word);
  }
  return cardOf(at, path);
}

/** The card as a person reads it, the same text on a terminal and piped. */
export function renderPersonCard(card: PersonCard, p: ChalkInstance): string {
  let out = `${p.bold(card.name)}  ${card.summary}\n${NEVER_A_TOOL_NOTE}\n\n`;
  if (card.command) out += `  command   ${card.command}\n`;
  out += "  tool      none (never a tool)\n";
  if (card.verbs) {
    out += `\n${p.bold("verbs")}\n`;
    const width = Math.max(...card.verbs.map((v) => v.command.length));
    for (const v of card.verbs) out += `  ${v.command.padEnd(width)}  ${v.summary}\n`;
    out += `\nrun ${p.bold(`rta explain ${card.name}.<verb>`)} for one verb's card\n`;
    return out;
  }
  if (card.command === null) return out;
  out += `\n${p.bold("inputs")}\n`;
  if (card.inputs.length === 0) out += "  none\n";
  for (const input of card.inputs) {
    const notes = [input.kind, ...(input.required ? ["required"] : [])];
    out += `  ${input.name}  ${input.description}  ${p.dim(`(${notes.join(", ")})`)}\n`;
  }
  out += `\nrun ${p.bold(`${card.command.split(" <")[0]?.split(" [")[0]} --help`)} for its usage\n`;
  return out;
}

/** True for a name the catalogue keeps from every tool by itself: a never-a-tool area, or one of its listed verbs. */
function kept(dotted: string): boolean {
  return (
    (NEVER_A_TOOL.areas as readonly string[]).includes(dotted) ||
    (NEVER_A_TOOL.verbs as readonly string[]).includes(dotted)
  );
}

function keptCard(dotted: string): PersonCard {
  return {
    name: dotted,
    never_a_tool: true,
    summary:
      "no command of this rta is called so: the name is kept for the person, so no capability or plugin offers it",
    command: null,
    tool: null,
    inputs: [],
  };
}

function cardOf(cmd: Command, path: string[]): PersonCard {
  const command = ["rta", ...path].join(" ");
  const card: PersonCard = {
    name: path.join("."),
    never_a_tool: true,
    summary: summaryOf(cmd),
    command,
    tool: null,
    inputs: [],
  };
  const verbs = visibleVerbs(cmd);
  if (verbs.length > 0) {
    card.verbs = verbs.map((v) => ({
      name: [...path, v.name()].join("."),
      command: `${command} ${v.name()}`,
      summary: summaryOf(v),
    }));
    return card;
  }
  const args = cmd.registeredArguments;
  card.command = [command, ...args.map((a) => (a.required ? `<${a.name()}>` : `[${a.name()}]`))].join(" ");
  for (const a of args)
    card.inputs.push({ name: a.name(), kind: "argument", description: a.description, required: a.required });
  for (const o of cmd.createHelp().visibleOptions(cmd)) {
    if (o.long === "--help") continue;
    card.inputs.push({ name: o.flags, kind: "option", description: o.description, required: o.mandatory });
  }
  return card;
}

/** A command's description, without the "(never a tool)" its --help adds: the card says so. */
function summaryOf(cmd: Command): string {
  return cmd.description().replace(/\s*\(never a tool\)$/, "");
}

/** The subcommands --help lists, without commander's own `help`. */
function visibleVerbs(cmd: Command): Command[] {
  return cmd
    .createHelp()
    .visibleCommands(cmd)
    .filter((c) => c.name() !== "help");
}

/** The person's command groups, built as the command line builds them (no capability commands: none is one of these). */
async function personCommands(cli: Cli): Promise<Command> {
  const [consent, mcp, pkg, reading, upstream, kv] = await Promise.all([
    import("./consentCommands.ts"),
    import("./mcpCommands.ts"),
    import("./pkgCommands.ts"),
    import("./readingCommands.ts"),
    import("./upstreamCommands.ts"),
    import("./kvVerbs.ts"),
  ]);
  const program = new Command("rta");
  consent.addConsentCommands(program, cli);
  mcp.addMcpCommands(program, cli);
  pkg.addPkgCommands(program, cli);
  reading.addReadingCommands(program, cli);
  upstream.addUpstreamCommands(program, cli);
  kv.addKvVerbs(program, cli);
  return program;
}
