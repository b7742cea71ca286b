/**
 * `rta operator`: the operator's seat as commands. Each verb's code loads
 * only when it runs. Never a tool.
 */
import type { Command } from "commander";
import type { Cli } from "./factory.ts";

/** Adds `operator`, `operator approve ID` and `operator deny ID`; it parses, and refuses only what commander does. */
export function addOperatorCommands(program: Command, cli: Cli): void {
  const op = program
    .command("operator")
    .enablePositionalOptions()
    .description("watch every running server live, and answer its pending consents (never a tool)")
    .option("--json", "print the event stream as JSON lines, even on a terminal")
    .action(async (opts) => {
      const { watch } = await import("./operator.ts");
      cli.status = await watch(cli, opts);
    });
  op.command("approve")
    .description("accept a pending consent")
    .argument("<id>", "the consent's id, as `rta operator` shows it")
    .option("--choice <choice>", "for a grant asked for: which of its choices (default: the first)")
    .option("--json", "print JSON")
    .action(async (id: string, opts) => {
      const { answer } = await import("./operator.ts");
      cli.status = await answer(cli, "approve", id, opts);
    });
  op.command("deny")
    .description("decline a pending consent")
    .argument("<id>", "the consent's id, as `rta operator` shows it")
    .option("--json", "print JSON")
    .action(async (id: string, opts) => {
      const { answer } = await import("./operator.ts");
      cli.status = await answer(cli, "deny", id, opts);
    });
}
