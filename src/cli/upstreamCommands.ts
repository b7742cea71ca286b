/**
 * `rta upstream list`: the MCP servers config puts behind rta, each
 * discovered now, with its state and its tools' safety classes. A person's
 * verb and never a tool (NEVER_A_TOOL names the area); its code loads only
 * when it runs.
 */
import type { Command } from "commander";
import type { Cli } from "./factory.ts";

/** Adds the `upstream` group; it parses, and refuses only what commander does. */
export function addUpstreamCommands(program: Command, cli: Cli): void {
  const upstream = program
    .command("upstream")
    .description("upstream MCP servers behind rta's gate: list them (never a tool)");
  upstream
    .command("list")
    .description("each upstream in config, discovered now: its state, and its tools with their safety class")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const { list } = await import("./upstream.ts");
      cli.status = await list(cli, opts);
    });
}
