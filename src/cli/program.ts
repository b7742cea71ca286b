/**
 * Builds the command line. The capability commands are generated from the
 * catalogue; the command groups that are not capabilities (explain, and later
 * grant, lock, agent, mcp, ...) load their code only when they run.
 */
import { Command, CommanderError } from "commander";
import { version } from "../../package.json";
import { builtinCatalogue } from "../capabilities/builtinCatalogue.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { Exit, RtaError } from "../core/errors.ts";
import { addCapabilityCommands } from "./capabilityCommands.ts";
import { type Io, processIo } from "./io.ts";
import { reportError, reportUsage } from "./report.ts";

export interface Cli {
  io: Io;
  catalogue: Catalogue;
  /** the exit status the command chose */
  status: number;
}

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

  const collect = (value: string, previous: string[]) => [...previous, value];

  const grant = program
    .command("grant")
    .description("a person's consent for what an agent may do beyond free reads (never a tool)");
  grant
    .command("allow")
    .description("allow an agent a capability, an area or a plugin, for a while")
    .argument("<target>", "a capability (note.rm), an area (note) or a plugin")
    .argument("[record]", "the one record the grant covers (a note id, a kv key, a pid)")
    .requiredOption("--agent <name>", "the agent the grant is for")
    .requiredOption("--ttl <duration>", "how long it lasts: 30s, 5m, 1h30m, 2d")
    .option("--max-uses <n>", "how many calls it covers (default: any number until it expires)")
    .option("--connection <name>", "only calls against this connection")
    .option("--profile <name>", "only calls naming this profile")
    .option("--host <host>", "only destination reads aimed at this host")
    .option("--args <json>", "only the one call with exactly these arguments")
    .option("--json", "print JSON")
    .action(async (target: string, record: string | undefined, opts) => {
      const { allow } = await import("./grant.ts");
      cli.status = allow(cli, target, record, opts);
    });
  grant
    .command("list")
    .description("grants: what is live, what is spent and what has expired")
    .option("--agent <name>", "only this agent's grants")
    .option("--detail", "also when and by whom each was issued, and the build it is bound to")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { list } = await import("./grant.ts");
      cli.status = list(cli, opts);
    });
  grant
    .command("revoke")
    .description("take grants back at once")
    .argument("[id]", "a grant id")
    .option("--agent <name>", "every grant of this agent")
    .option("--all", "every grant")
    .option("--json", "print JSON")
    .action(async (id: string | undefined, opts) => {
      const { revoke } = await import("./grant.ts");
      cli.status = revoke(cli, id, opts);
    });

  const lockCmd = program
    .command("lock")
    .enablePositionalOptions()
    .description("the instant no: stop an agent's calls, free reads included (never a tool)")
    .argument("[target]", "a capability or an area (default: everything)")
    .option("--agent <name>", "only this agent (default: every agent)")
    .option("--ttl <duration>", "lift it by itself after this long (default: until lifted)")
    .option("--json", "print JSON")
    .action(async (target: string | undefined, opts) => {
      const { lock } = await import("./lock.ts");
      cli.status = lock(cli, target, opts);
    });
  lockCmd
    .command("list")
    .description("locks, active, lifted and expired")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { lockList } = await import("./lock.ts");
      cli.status = lockList(cli, opts);
    });
  lockCmd
    .command("lift")
    .description("lift locks")
    .argument("[id]", "a lock id")
    .option("--agent <name>", "every lock on this agent")
    .option("--all", "every lock")
    .option("--json", "print JSON")
    .action(async (id: string | undefined, opts) => {
      const { lift } = await import("./lock.ts");
      cli.status = lift(cli, id, opts);
    });
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
    .option("--verbose", "write one short line to stderr for every agent call: tool, outcome, duration")
    .option(
      "--http [address]",
      "serve MCP over HTTP at /mcp instead of stdio (default 127.0.0.1:8722); every request needs a token",
    )
    .option(
      "--allow-host <name>",
      "a host name to accept in Host and Origin beside the loopback ones (repeatable)",
      collect,
      [],
    )
    .action(
      async (opts: {
        root: string[];
        agent?: string;
        maxResult?: string;
        verbose?: boolean;
        http?: boolean | string;
        allowHost: string[];
      }) => {
        const { serve } = await import("./serve.ts");
        cli.status = await serve(cli, opts);
      },
    );
  const token = mcp.command("token").description("bearer tokens for rta mcp serve --http (never a tool)");
  token
    .command("new")
    .description("make a token for an agent; it is printed once and only its hash is kept")
    .requiredOption("--agent <name>", "the agent the token names")
    .option("--ttl <duration>", "how long it lasts (default: until revoked)")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { tokenNew } = await import("./token.ts");
      cli.status = tokenNew(cli, opts);
    });
  token
    .command("list")
    .description("tokens: agent, expiry, state (never the token)")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { tokenList } = await import("./token.ts");
      cli.status = tokenList(cli, opts);
    });
  token
    .command("revoke")
    .description("revoke tokens at once")
    .argument("[id]", "a token id")
    .option("--agent <name>", "every token of this agent")
    .option("--all", "every token")
    .option("--json", "print JSON")
    .action(async (id: string | undefined, opts) => {
      const { tokenRevoke } = await import("./token.ts");
      cli.status = tokenRevoke(cli, id, opts);
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

  const agentCmd = program.command("agent").description("what agents did, from the record (never a tool)");
  agentCmd
    .command("log")
    .description("agent calls: time, agent, tool, outcome, duration, grant spent")
    .option("--session <id>", "one server's session (the id its banner names)")
    .option("--agent <name>", "one agent")
    .option("--since <duration>", "only the last while: 30m, 2h, 1d")
    .option("--code <code>", "only calls that ended with this code (ok for the ones that ran)")
    .option("--follow", "go on printing calls as they happen")
    .option("--verify", "check the record's chains: name any line altered, removed or reordered, and any cut tail")
    .option("--json", "print JSON (an array; one object a line with --follow)")
    .action(async (opts) => {
      const { log } = await import("./agent.ts");
      cli.status = await log(cli, opts);
    });
  agentCmd
    .command("overview")
    .description("sessions, agents, calls, refusals by code, probes, grants spent")
    .option("--detail", "name the record file and list each session")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { overview } = await import("./agent.ts");
      cli.status = overview(cli, opts);
    });

  const configCmd = program.command("config").description("the operator's config.toml (never a tool)");
  configCmd
    .command("path")
    .description("where config.toml is")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { configPath } = await import("./configCmd.ts");
      cli.status = configPath(cli, opts);
    });
  configCmd
    .command("show")
    .description("the config as rta reads it, secrets masked")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { configShow } = await import("./configCmd.ts");
      cli.status = configShow(cli, opts);
    });
  configCmd
    .command("check")
    .description("what in config.toml the capabilities would refuse")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { configCheck } = await import("./configCmd.ts");
      cli.status = configCheck(cli, opts);
    });
  program
    .command("doctor")
    .description("check config, dirs, roots, the record and the grant store, each with its fix (never a tool)")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { doctor } = await import("./doctor.ts");
      cli.status = doctor(cli, opts);
    });

  const own = new Set(program.commands.map((c) => c.name()));
  if (first === undefined || !own.has(first))
    addCapabilityCommands(program, cli, cli.catalogue.areas().includes(first ?? "") ? first : undefined);
  return program;
}

/** Runs the command line and returns the exit status; never throws. A bench or test may hand in its own catalogue. */
export async function main(
  argv: string[],
  io: Io = processIo(),
  catalogue: Catalogue = builtinCatalogue(),
): Promise<number> {
  const cli: Cli = { io, catalogue, status: Exit.ok };
  const program = buildProgram(cli, argv[0]);
  try {
    await program.parseAsync(argv, { from: "user" });
    return cli.status;
  } catch (err) {
    if (err instanceof CommanderError) return commanderExit(io, err, knownWords(program, argv));
    // A refusal a command did not catch itself is still said as itself, with its code and hint.
    if (err instanceof RtaError) return reportError(io, err, false);
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
