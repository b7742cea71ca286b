/**
 * `rta grant` and `rta lock`: a person's consent and the instant no, as
 * commands. Each verb's code loads only when it runs; what it may do is the
 * verb's and the gate's to say, not this file's.
 */
import type { Command } from "commander";
import type { Cli } from "./factory.ts";

/** Adds `grant allow | list | revoke` and `lock [target] | list | lift`; it parses, and refuses only what commander does. */
export function addConsentCommands(program: Command, cli: Cli): void {
  const grant = program
    .command("grant")
    .description("a person's consent for what an agent may do beyond free reads (never a tool)");
  grant
    .command("allow")
    .description("allow an agent a capability, an area or a plugin, for a while")
    .argument("<target>", "a capability (note.rm), an area (note) or a plugin")
    .argument("[value]", "the one path, note id, kv key or pid the grant covers")
    .option("--agent <name>", "the agent the grant is for (default: the one agent registered or seen, if only one)")
    .requiredOption("--ttl <duration>", "how long it lasts: 30s, 5m, 1h30m, 2d")
    .option("--max-uses <n>", "how many calls it covers (default: any number until it expires)")
    .option("--connection <name>", "only calls against this connection")
    .option("--profile <name>", "only calls naming this profile")
    .option("--host <host>", "only destination reads aimed at this host")
    .option("--args <json>", "only the one call with exactly these arguments")
    .option("--yes", "issue it without asking, even when it covers a destructive capability (not under grant_from)")
    .option("--json", "print JSON")
    .action(async (target: string, record: string | undefined, opts) => {
      const { allow } = await import("./grant.ts");
      cli.status = await allow(cli, target, record, opts);
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
      cli.status = await lock(cli, target, opts);
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
      cli.status = await lift(cli, id, opts);
    });
}
