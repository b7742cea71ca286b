/**
 * `rta pkg install | list | remove | verify`: the plugins a person installs,
 * as commands. Every verb is a person's and never a tool (NEVER_A_TOOL names
 * the area). Each verb's code loads only when it runs.
 */
import type { Command } from "commander";
import type { Cli } from "./factory.ts";

/** Adds the `pkg` group; it parses, and refuses only what commander does. */
export function addPkgCommands(program: Command, cli: Cli): void {
  const pkg = program.command("pkg").description("plugins: install, list, remove and verify them (never a tool)");
  pkg
    .command("install")
    .description("install a plugin's binary (rta-plugin-<name>) after showing what it declares")
    .argument("<path>", "the plugin's binary, named rta-plugin-<name>")
    .option("--yes", "install it without asking")
    .option("--json", "print JSON")
    .action(async (path: string, opts: { yes?: boolean; json?: boolean }) => {
      const { install } = await import("./pkg.ts");
      cli.status = await install(cli, path, opts);
    });
  pkg
    .command("list")
    .description("installed plugins: name, version, digest, capabilities and state")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const { list } = await import("./pkg.ts");
      cli.status = list(cli, opts, false);
    });
  pkg
    .command("remove")
    .description("remove an installed plugin")
    .argument("<name>", "the plugin's name, e.g. note")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { json?: boolean }) => {
      const { remove } = await import("./pkg.ts");
      cli.status = remove(cli, name, opts);
    });
  pkg
    .command("verify")
    .description("hash every installed plugin again and say which changed (exit 1 if any)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const { list } = await import("./pkg.ts");
      cli.status = list(cli, opts, true);
    });
}
