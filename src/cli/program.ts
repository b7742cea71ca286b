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
import { movedHint } from "../core/movedAreas.ts";
import { calledSo, closest, didYouMean } from "../core/suggest.ts";
import { warnIfConfigUnread } from "./configWarning.ts";
import { type Cli, makeCli } from "./factory.ts";
import { EXIT_PIPE_CLOSED, type Io, StdoutClosed, takeColor } from "./io.ts";
import { addMcpCommands } from "./mcpCommands.ts";
import { reportError, reportUsage } from "./report.ts";
import { takeStore } from "./storeFlag.ts";

/**
 * Builds the command line, loading the code of only the groups it builds.
 * When the first word names a command group of its own (grant, lock, ...),
 * the capability commands are not built; when it is `mcp`, no other group is
 * either. A server start then evaluates none of their code: what it holds in
 * memory before answering its client decides whether a collection runs first.
 */
async function buildProgram(cli: Cli, first?: string): Promise<Command> {
  const program = new Command("rta")
    .description("capabilities for operators, on the terminal and as MCP tools for agents, behind one gate")
    .version(version, "-V, --version")
    // taken out of the command line by main() wherever it stands; declared here for --help
    .option("--color <when>", "colour the output: auto, always or never", "auto")
    .option("--json", "print JSON, wherever stdout goes (each command takes it too)")
    .option("--store <url>", "the grant store a server's replicas share: postgres://… (as RTA_STORE; default: gate.db)")
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
    .description("show a capability's card, an area's capabilities, or the whole catalogue and what is never a tool")
    .argument("[capability]", "a capability's dotted name, e.g. proc.list")
    .option("--json", "print JSON")
    .action(async (name: string | undefined, opts: { json?: boolean }) => {
      const { explain } = await import("./explain.ts");
      cli.status = await explain(cli, name, opts.json);
    });

  program
    .command("completion")
    .description("print a completion script for bash, zsh or fish (verbs, flags, capabilities, agents, grant ids)")
    .argument("<shell>", "bash, zsh or fish")
    .action(async (shell: string) => {
      const { completion } = await import("./completion.ts");
      cli.status = completion(cli, shell);
    });

  if (first === "mcp") {
    addMcpCommands(program, cli);
    return program;
  }
  const [
    { addConsentCommands },
    { addOperatorCommands },
    { addPkgCommands },
    { addReadingCommands },
    { addUpstreamCommands },
  ] = await Promise.all([
    import("./consentCommands.ts"),
    import("./operatorCommands.ts"),
    import("./pkgCommands.ts"),
    import("./readingCommands.ts"),
    import("./upstreamCommands.ts"),
  ]);
  addConsentCommands(program, cli);
  addOperatorCommands(program, cli);
  addMcpCommands(program, cli);
  addPkgCommands(program, cli);
  addReadingCommands(program, cli);
  addUpstreamCommands(program, cli);

  const own = new Set(program.commands.map((c) => c.name()));
  if (first === undefined || !own.has(first)) {
    const [{ addCapabilityCommands }, { addLogFollow }, { addKvVerbs }, { describeGroup }] = await Promise.all([
      import("./capabilityCommands.ts"),
      import("./logFollow.ts"),
      import("./kvVerbs.ts"),
      import("./groupLines.ts"),
    ]);
    const area = cli.catalogue.areas().includes(first ?? "") ? first : undefined;
    const groups = addCapabilityCommands(program, cli, area);
    addLogFollow(program, cli);
    addKvVerbs(program, cli, area);
    // a group's help line names its commands, the person's verbs beside a capability's (kv copy) among them
    for (const [group, key] of groups) describeGroup(group, key);
  }
  return program;
}

/**
 * The verbs that never run a plugin's capability, so never a plugin binary
 * either: one that changed since it was installed is not run to describe it
 * again. `rta lock`, the instant no, waits on no plugin (a describe may take
 * 10 s) and runs no code nobody installed; nor does a grant, which is refused
 * on a changed plugin whatever it would say now, nor a look at the catalogue.
 */
const NEVER_RUN_PLUGINS = new Set([
  "agent",
  "completion",
  "config",
  "doctor",
  "explain",
  "grant",
  "help",
  "lock",
  "operator",
  "upstream",
]);

/**
 * Which plugins a command line may run a capability of: every one for a server (`rta mcp serve`), the one whose
 * area it names (`rta demo echo`), none for another verb or a built-in's area.
 */
function mayRunPlugins(argv: readonly string[]): boolean | ((name: string) => boolean) {
  const verb = argv[0] ?? "";
  // `rta mcp token revoke`, the no of a server over HTTP, waits on no plugin either
  if (verb === "mcp") return argv.includes("serve");
  if (NEVER_RUN_PLUGINS.has(verb)) return false;
  return (name) => name === verb;
}

/**
 * Runs one command line against a factory (the real process's by default; a bench or test hands in its own) and
 * returns the exit status. Never throws: a refusal no command caught is said with its code and hint, anything else
 * as core.internal.
 */
export async function main(given: string[], cli: Cli = makeCli()): Promise<number> {
  const { io } = cli;
  // completion.ts's COMPLETE_VERB, spelt out here so a start-up that is no completion loads none of its code
  if (given[0] === "__complete") {
    // the words being completed as they stand, --color and a half-typed value of it included
    const { complete } = await import("./completion.ts");
    await cli.loadPlugins(false);
    return complete(cli, await buildProgram(cli, given[0]), given.slice(1));
  }
  let argv: string[];
  try {
    const stored = takeStore(given);
    if (stored.store !== undefined) io.env = { ...io.env, RTA_STORE: stored.store };
    const taken = takeColor(stored.argv);
    // `rta --json proc list` is `rta proc list --json`: every command that prints a result takes it
    argv = taken.argv[0] === "--json" ? jsonLast(taken.argv.slice(1)) : taken.argv;
    if (taken.color) io.color = taken.color;
  } catch (err) {
    return reportError(io, err as RtaError, false);
  }
  // `rta pkg` reads the index itself, and must still work when it is torn
  if (argv[0] !== "pkg") await cli.loadPlugins(mayRunPlugins(argv));
  const program = await buildProgram(cli, argv[0]);
  if (argv.length === 0) {
    // a bare `rta` is a person asking what there is: the help, on stdout, as `rta --help` gives it
    io.out(program.helpInformation());
    return Exit.ok;
  }
  warnIfConfigUnread(io, argv[0]);
  // a person's call runs a plugin described anew from a binary that changed since it was installed: said, not hidden
  const changed = cli.plugins().find((p) => p.name === argv[0] && p.offered && p.changed);
  if (changed?.offered)
    io.err(
      `rta: note: plugin ${changed.name} is not the binary that was installed (it hashes to ${changed.sha256.slice(0, 12)} now): \`rta pkg verify\` says more\n`,
    );
  try {
    await program.parseAsync(argv, { from: "user" });
    return cli.status;
  } catch (err) {
    if (err instanceof StdoutClosed) return stdoutClosed(io, err);
    if (err instanceof CommanderError) return commanderExit(io, err, program, argv, cli);
    // A refusal a command did not catch itself is still said as itself, with its code and hint.
    if (err instanceof RtaError) return reportError(io, err, false);
    // whatever read stdout has gone (`| head`) by a path that did not go through io.out: as above
    if ((err as NodeJS.ErrnoException)?.code === "EPIPE") return EXIT_PIPE_CLOSED;
    if (io.env.RTA_DEBUG) io.err(`${(err as Error)?.stack ?? String(err)}\n`);
    io.err("rta: error: rta hit an unexpected failure (core.internal)\n");
    io.err("rta: hint: run the same command with RTA_DEBUG=1 to see the details, and report it\n");
    return Exit.failure;
  } finally {
    // a plugin's long-lived child would keep the process alive once the command is done
    cli.closePlugins();
  }
}

/** `--json` put after the command's own words and before a `--`, where the command reads it. */
function jsonLast(argv: string[]): string[] {
  const end = argv.indexOf("--");
  return end < 0 ? [...argv, "--json"] : [...argv.slice(0, end), "--json", ...argv.slice(end)];
}

/**
 * Stdout took no more. Its reader went away (`| head` had what it wanted):
 * nothing is said, and the status is ripgrep's for it (EXIT_PIPE_CLOSED). Anything else (a full disk behind `>`) is said on stderr.
 */
function stdoutClosed(io: Io, err: StdoutClosed): number {
  if (err.errno === "EPIPE") return EXIT_PIPE_CLOSED;
  return reportError(io, err.refusal(), false);
}

/** The longest run of argv that names commands, e.g. ["proc", "list"] for `proc list --bogus`. */
function knownWords(program: Command, argv: string[]): string[] {
  const words: string[] = [];
  let cmd = program;
  for (const arg of argv) {
    const next = cmd.commands.find((c) => c.name() === arg || c.aliases().includes(arg));
    if (!next) break;
    words.push(arg);
    cmd = next;
  }
  return words;
}

function commandAt(program: Command, words: string[]): Command {
  let cmd = program;
  for (const w of words) cmd = cmd.commands.find((c) => c.name() === w || c.aliases().includes(w)) ?? cmd;
  return cmd;
}

function commanderExit(io: Io, err: CommanderError, program: Command, argv: string[], cli: Cli): number {
  if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") {
    return Exit.ok;
  }
  const message = err.message.replace(/^error: /, "");
  const words = knownWords(program, argv);
  const guess = suggestion(err, commandAt(program, words), argv.slice(words.length), words, cli);
  const base =
    words.length === 0
      ? "run `rta explain` to see every capability, or `rta --help`"
      : `run \`rta ${words.join(" ")} --help\` to see what it takes`;
  return reportUsage(io, message, guess ? `${guess} ${base}` : base);
}

/** "did you mean ..." for the first word of `rest` the command does not know: a command, a capability or a flag. */
function suggestion(err: CommanderError, cmd: Command, rest: string[], words: string[], cli: Cli): string {
  const at = (w: string) => ["rta", ...words, w].join(" ");
  if (err.code === "commander.unknownCommand" && rest[0] !== undefined) {
    const typed = rest[0];
    // an installed plugin that could not be offered is said as such, not guessed at
    const leftOut = words.length === 0 ? cli.plugins().find((p) => p.name === typed && !p.offered) : undefined;
    if (leftOut && !leftOut.offered)
      return `plugin ${typed} is installed but left out (${leftOut.reason}): \`rta doctor\` says more;`;
    const moved = words.length === 0 ? movedHint(cli.catalogue, typed) : undefined;
    if (moved !== undefined) return `${moved};`;
    if (typed.includes(".") || typed.includes("_")) {
      const names = cli.catalogue.all().map((c) => c.name);
      const dotted = typed.replaceAll("_", ".");
      const near = names.includes(dotted) ? [dotted] : closest(dotted, names);
      if (near.length > 0) return didYouMean(near, (n) => `rta ${n.replaceAll(".", " ")}`);
    }
    // the tool a person reaches for by habit (`rta ps`, `rta cat`, `rta ping`) is the capability that does its job,
    // before a name a letter or two away (`rta fs` for `rta ps`)
    const doing = calledSo(cli.catalogue, typed, words);
    if (doing.length > 0) return didYouMean(doing, (n) => `rta ${n.replaceAll(".", " ")}`);
    const names = cmd.commands.filter((c) => !hidden(c)).flatMap((c) => [c.name(), ...c.aliases()]);
    return didYouMean(closest(typed, names), at);
  }
  // a secret typed after the name, as `pass insert` users might: say where it goes instead, and why not there
  const secret = Object.entries(cli.catalogue.byName(words.join("."))?.inputs ?? {}).find(([, spec]) => spec.secret);
  if (err.code === "commander.excessArguments" && secret)
    return `the ${secret[0]} is read from stdin, never from the command line, where the shell's history and ps keep it: \`printf '%s' "$VALUE" | rta ${words.join(" ")} NAME\`;`;
  const flags = cmd.options.flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined);
  flags.push("--help", "-h");
  for (const word of rest) {
    if (word === "--") break;
    if (!word.startsWith("-") || word === "-") continue;
    const flag = word.split("=")[0] as string;
    if (flags.includes(flag)) continue;
    return didYouMean(
      closest(
        flag,
        flags.filter((f) => f.startsWith("--")),
      ),
    );
  }
  return "";
}

function hidden(cmd: Command): boolean {
  return (cmd as unknown as { _hidden?: boolean })._hidden === true;
}
