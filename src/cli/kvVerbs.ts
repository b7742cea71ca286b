/**
 * The person's kv and keys verbs, beside the capability commands of those
 * areas: `rta kv copy`, `rta kv edit`, `rta keys export`, `rta keys import`.
 * They are never tools (NEVER_A_TOOL in core/catalogue.ts): no capability is
 * declared for them, so no server can offer one. Each verb's code loads only
 * when it runs.
 */
import { type Command, Option } from "commander";
import type { Cli } from "./factory.ts";

/** The command group `name`, as the capability commands made it, or a new one when they made none. */
function group(program: Command, name: string): Command {
  return program.commands.find((c) => c.name() === name) ?? program.command(name).description(`${name} capabilities`);
}

/**
 * Adds the person's verbs to the kv and keys groups, when the command line builds those areas (`area` names the one
 * it builds, or none for all). Refuses nothing.
 */
export function addKvVerbs(program: Command, cli: Cli, area?: string): void {
  if (area === undefined || area === "kv") {
    const kv = group(program, "kv");
    kv.command("copy")
      .description("Copy a value to the clipboard, cleared after 45 s, never printed (never a tool)")
      .argument("<name>", "the key's name")
      .option("--clear-after <seconds>", "clear the clipboard after this many seconds, 0 for never (default 45)")
      .option("--json", "print JSON")
      .action(async (name: string, opts: { clearAfter?: string; json?: boolean }) => {
        const { kvCopy } = await import("./kvCopy.ts");
        cli.status = await kvCopy(cli, name, opts);
      });
    kv.command("edit")
      .description("Edit the whole store's plaintext in $VISUAL or $EDITOR, in a private temp file (never a tool)")
      .option("--json", "print JSON: the names added, changed and removed")
      .action(async (opts: { json?: boolean }) => {
        const { kvEdit } = await import("./kvEdit.ts");
        cli.status = await kvEdit(cli, opts);
      });
    kv.command("__clear-clipboard", { hidden: true })
      .argument("<tool>")
      .argument("<seconds>")
      .action(async (tool: string, seconds: string) => {
        const { kvClearClipboard } = await import("./kvCopy.ts");
        cli.status = await kvClearClipboard(cli, tool, seconds);
      });
  }
  if (area === undefined || area === "keys") {
    const keys = group(program, "keys");
    keys
      .command("export")
      .description("Print the identity file, secret key included, as age-keygen writes it (never a tool)")
      .action(async () => {
        const { keysExport } = await import("./keysMove.ts");
        cli.status = await keysExport(cli);
      });
    keys
      .command("import")
      .description("Install an age identity file (FILE, or - for stdin) as this rta's identity (never a tool)")
      .argument("<file>", "the identity file age-keygen wrote, or - to read it from stdin")
      .addOption(new Option("--force", "replace the identity already there (the store may no longer open)"))
      .option("--json", "print JSON")
      .action(async (file: string, opts: { force?: boolean; json?: boolean }) => {
        const { keysImport } = await import("./keysMove.ts");
        cli.status = await keysImport(cli, file, opts);
      });
  }
}
