/**
 * Builds the command line. The capability commands are generated from the
 * catalogue; the command groups that are not capabilities (explain, and later
 * grant, lock, agent, mcp, ...) load their code only when they run.
 */
import { Command, CommanderError } from "commander";
import { version } from "../../package.json";
import { builtinCatalogue } from "../capabilities/builtinCatalogue.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { Exit } from "../core/errors.ts";
import { addCapabilityCommands } from "./capabilityCommands.ts";
import { type Io, processIo } from "./io.ts";
import { reportUsage } from "./report.ts";

export interface Cli {
  io: Io;
  catalogue: Catalogue;
  /** the exit status the command chose */
  status: number;
}

export function buildProgram(cli: Cli): Command {
  const program = new Command("rta")
    .description("capabilities for operators, on the terminal and as MCP tools for agents, behind one gate")
    .version(version, "-V, --version")
    .showSuggestionAfterError(false)
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

  const collect = (value: string, previous: string[]) => [...previous, value];
  const mcp = program
    .command("mcp")
    .description("serve rta's capabilities to agents over MCP, and register it with clients");
  mcp
    .command("serve")
    .description("speak MCP over stdio; every call passes the gate and is written to the record")
    .option(
      "--root <dir>",
      "a directory path arguments may use (repeatable; default: the current directory)",
      collect,
      [],
    )
    .option("--agent <name>", "the agent's name for grants and the record (default: the client's reported name)")
    .option("--max-result <MiB>", "the largest result an agent may be handed, 1..256 (default 8)")
    .action(async (opts: { root: string[]; agent?: string; maxResult?: string }) => {
      const { serve } = await import("./mcp.ts");
      cli.status = await serve(cli, opts);
    });
  mcp
    .command("install")
    .description("print (or --write) the registration that lets a client launch rta mcp serve")
    .argument("<client>", "claude, claude-code, cursor, vscode, codex or gemini")
    .option("--root <dir>", "a directory path arguments may use (repeatable)", collect, [])
    .option("--agent <name>", "the agent's name (default: the client's name)")
    .option("--max-result <MiB>", "the largest result an agent may be handed, 1..256")
    .option("--write", "merge the registration into the client's config file, keeping a backup")
    .option("--json", "print JSON")
    .action(
      async (
        client: string,
        opts: { root: string[]; agent?: string; maxResult?: string; write?: boolean; json?: boolean },
      ) => {
        const { install } = await import("./mcp.ts");
        cli.status = install(cli, client, opts);
      },
    );

  addCapabilityCommands(program, cli);
  return program;
}

/** Runs the command line and returns the exit status; never throws. A bench or test may hand in its own catalogue. */
export async function main(
  argv: string[],
  io: Io = processIo(),
  catalogue: Catalogue = builtinCatalogue(),
): Promise<number> {
  const cli: Cli = { io, catalogue, status: Exit.ok };
  const program = buildProgram(cli);
  try {
    await program.parseAsync(argv, { from: "user" });
    return cli.status;
  } catch (err) {
    if (err instanceof CommanderError) return commanderExit(io, err, knownWords(program, argv));
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
