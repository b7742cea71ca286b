/**
 * The command line: the program's root, its command groups in the order
 * `rta --help` lists them, and main(), which runs one command line against a
 * factory and turns whatever ends it into an exit status. The capability
 * commands are generated from the catalogue; the groups that are not
 * capabilities load their code only when they run.
 */
import { Command, CommanderError } from "commander";
import { version } from "../../package.json";
import { Exit, RtaError } from "../core/errors.ts";
import { addCapabilityCommands } from "./capabilityCommands.ts";
import { warnIfConfigUnread } from "./configWarning.ts";
import { addConsentCommands } from "./consentCommands.ts";
import { type Cli, makeCli } from "./factory.ts";
import type { Io } from "./io.ts";
import { addLogFollow } from "./logFollow.ts";
import { addMcpCommands } from "./mcpCommands.ts";
import { addReadingCommands } from "./readingCommands.ts";
import { reportError, reportUsage } from "./report.ts";

/**
 * Builds the command line. When the first word names a command group of its
 * own (mcp, grant, lock, ...), the capability commands are not built: making
 * all of them costs a few milliseconds a server start does not need.
 */
export function buildProgram(cli: Cli, first?: string): Command {
  const program = new Command("rta")
    .description("capabilities for operators, on the terminal and as MCP tools for agents, behind one gate")
    .version(version, "-V, --version")
    .showSuggestionAfterError(false)
    // Options after a subcommand's name are that subcommand's: `lock lift --agent x` is lift's --agent, not lock's.
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({
      writeOut: (s) => cli.io.out(s),
      writeErr: (s) => cli.io.err(s),
      // Parse errors are reported by main, in rta's own form.
      outputError: () => {},
    });

  program
    .command("explain")
    .description("show a capability's card, or the whole catalogue and what is never a tool")
    .argument("[capability]", "a capability's dotted name, e.g. proc.list")
    .option("--json", "print JSON")
    .action(async (name: string | undefined, opts: { json?: boolean }) => {
      const { explain } = await import("./explain.ts");
      cli.status = explain(cli, name, opts.json);
    });

  addConsentCommands(program, cli);
  addMcpCommands(program, cli);
  addReadingCommands(program, cli);

  const own = new Set(program.commands.map((c) => c.name()));
  if (first === undefined || !own.has(first)) {
    addCapabilityCommands(program, cli, cli.catalogue.areas().includes(first ?? "") ? first : undefined);
    addLogFollow(program, cli);
  }
  return program;
}

/**
 * Runs one command line against a factory (the real process's by default; a bench or test hands in its own) and
 * returns the exit status. Never throws: a refusal no command caught is said with its code and hint, anything else
 * as core.internal.
 */
export async function main(argv: string[], cli: Cli = makeCli()): Promise<number> {
  const { io } = cli;
  const program = buildProgram(cli, argv[0]);
  warnIfConfigUnread(io, argv[0]);
  try {
    await program.parseAsync(argv, { from: "user" });
    return cli.status;
  } catch (err) {
    if (err instanceof CommanderError) return commanderExit(io, err, knownWords(program, argv));
    // A refusal a command did not catch itself is still said as itself, with its code and hint.
    if (err instanceof RtaError) return reportError(io, err, false);
    // whatever read stdout has gone (`| head`): it has what it wanted, as ripgrep takes it, and there is no one to tell
    if ((err as NodeJS.ErrnoException)?.code === "EPIPE") return Exit.ok;
    if (io.env.RTA_DEBUG) io.err(`${(err as Error)?.stack ?? String(err)}\n`);
    io.err("rta: error: rta hit an unexpected failure (core.internal)\n");
    io.err("rta: hint: run the same command with RTA_DEBUG=1 to see the details, and report it\n");
    return Exit.failure;
  }
}

/** The longest run of argv that names commands, e.g. ["proc", "list"] for `proc list --bogus`. */
function knownWords(program: Command, argv: string[]): string[] {
  const words: string[] = [];
  let cmd = program;
  for (const arg of argv) {
    const next = cmd.commands.find((c) => c.name() === arg);
    if (!next) break;
    words.push(arg);
    cmd = next;
  }
  return words;
}

function commanderExit(io: Io, err: CommanderError, words: string[]): number {
  if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") {
    return Exit.ok;
  }
  const message = err.message.replace(/^error: /, "");
  if (words.length === 0) return reportUsage(io, message, "run `rta explain` to see every capability, or `rta --help`");
  return reportUsage(io, message, `run \`rta ${words.join(" ")} --help\` to see what it takes`);
}
