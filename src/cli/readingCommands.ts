/**
 * `rta agent`, `rta config` and `rta doctor`: the verbs that read back what
 * agents did and how rta is set up, as commands. Each verb's code loads only
 * when it runs.
 */
import { type Command, Option } from "commander";
import type { Cli } from "./factory.ts";

/** Adds `agent log | overview`, `config path | show | check` and `doctor`; it parses, and refuses only what commander does. */
export function addReadingCommands(program: Command, cli: Cli): void {
  const collect = (value: string, previous: string[]) => [...previous, value];
  const agentCmd = program.command("agent").description("what agents did, from the record (never a tool)");
  agentCmd
    .command("log")
    .description("agent calls: time, agent, tool, outcome, duration, grant spent")
    .option("--session [id]", "one server's session (the id its banner names; without one, the latest)")
    .option("--agent <name>", "one agent")
    .option("--since <duration>", "only the last while: 30m, 2h, 1d")
    .option("--code <code>", "only calls that ended with this code (ok for the ones that ran)")
    .option("--follow", "go on printing calls as they happen")
    .addOption(
      // the whole record's chain is checked: a filter or --follow would be silently left out
      new Option(
        "--verify",
        "check the record's chains: name any line altered, removed or reordered, and any cut tail",
      ).conflicts(["session", "agent", "since", "code", "follow"]),
    )
    .option("--json", "print JSON: an array, or one object a line with --follow")
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
      cli.status = await overview(cli, opts);
    });

  const configCmd = program.command("config").description("the operator's config.toml (never a tool)");
  configCmd
    .command("path")
    .description("where config.toml is (its dir is made if missing)")
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
    .option("--root <dir>", "check the roots a server given this --root would serve (repeatable)", collect, [])
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { doctor } = await import("./doctor.ts");
      cli.status = doctor(cli, opts);
    });
}
