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
    .description("upstream MCP servers behind rta's gate: add, list, approve, refresh, remove (never a tool)");
  upstream
    .command("list")
    .description("each upstream in config, discovered now: its state, and its tools with their safety class")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const { list } = await import("./upstream.ts");
      cli.status = await list(cli, opts);
    });
  upstream
    .command("add")
    .description(
      "put an MCP server behind rta: `add NAME -- CMD ARGS…` or `add NAME --url URL`; withheld until approved",
    )
    .argument("<name>", "its name: lowercase letters and digits, starting with a letter")
    .argument("[command...]", "the command that starts it (after --)")
    .option("--url <url>", "a Streamable HTTP server's address")
    .option(
      "--header <header>",
      "a header sent to it, 'Name: value' (kept in config.toml)",
      (v, all: string[] = []) => [...all, v],
    )
    .option("--json", "print JSON")
    .action(async (name: string, command: string[], opts: { url?: string; header?: string[]; json?: boolean }) => {
      const { add } = await import("./upstreamEdit.ts");
      cli.status = add(cli, name, command, opts);
    });
  upstream
    .command("approve")
    .description("discover an upstream, show its tools or what changed since its approval, and approve them")
    .argument("<name>", "the upstream")
    .option("--yes", "approve without asking (needed when piped)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { yes?: boolean; json?: boolean }) => {
      const { approve } = await import("./upstreamApprove.ts");
      cli.status = await approve(cli, name, opts);
    });
  upstream
    .command("refresh")
    .description("discover upstreams again and say what changed against each approval (approves nothing)")
    .argument("[name]", "only this upstream")
    .option("--json", "print JSON")
    .action(async (name: string | undefined, opts: { json?: boolean }) => {
      const { refresh } = await import("./upstreamApprove.ts");
      cli.status = await refresh(cli, name, opts);
    });
  upstream
    .command("remove")
    .description("take an upstream out of config.toml and forget its approval")
    .argument("<name>", "the upstream")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { json?: boolean }) => {
      const { remove } = await import("./upstreamEdit.ts");
      cli.status = remove(cli, name, opts);
    });
}
