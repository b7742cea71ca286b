/**
 * `rta mcp serve | token | install`: serving rta to agents, the tokens an
 * HTTP server takes, and a client's registration, as commands. Each verb's
 * code loads only when it runs, so a server's start pays for nothing else.
 */
import type { Command } from "commander";
import type { Cli } from "./factory.ts";

/** Adds the `mcp` group; it parses, and refuses only what commander does. */
export function addMcpCommands(program: Command, cli: Cli): void {
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
    .option(
      "--kv",
      "open the kv store with <config dir>/identity.txt when RTA_KV_IDENTITY names no identity (without either, the kv tools answer kv.locked)",
    )
    .action(
      async (opts: {
        root: string[];
        agent?: string;
        maxResult?: string;
        verbose?: boolean;
        http?: boolean | string;
        allowHost: string[];
        kv?: boolean;
      }) => {
        // the dependencies' code, which a server builds at once, evaluated before the collection: see collectWhileSmall
        require("./deps.ts");
        collectWhileSmall();
        const { serve } = await import("./serve.ts");
        cli.status = await serve(cli, opts);
      },
    );
  mcp
    .command("inspect")
    .description("print what an agent is told by rta mcp serve started with the same flags (never a tool)")
    .option("--agent <name>", "the agent: its name in each grant's command, and the grants it holds now")
    .option("--era <revision>", "the protocol revision the client speaks: 2025-11-25 (default) or 2026-07-28")
    .option("--root <dir>", "as for rta mcp serve (repeatable)", collect, [])
    .option("--kv", "as for rta mcp serve")
    .option("--max-result <MiB>", "as for rta mcp serve")
    .option("--http", "as a server started with --http tells a remote client")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { inspect } = await import("./mcpInspect.ts");
      cli.status = await inspect(cli, opts);
    });
  const token = mcp.command("token").description("bearer tokens for rta mcp serve --http (never a tool)");
  token
    .command("new")
    .description("make a token for an agent; it is printed once and only its hash is kept")
    .requiredOption("--agent <name>", "the agent the token names")
    .option("--ttl <duration>", "how long it lasts (default: 90d, or the team policy's max_token_ttl if shorter)")
    .option("--json", "print JSON")
    .action(async (opts) => {
      const { tokenNew } = await import("./token.ts");
      cli.status = await tokenNew(cli, opts);
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
    .option("--project <dir>", "claude-code and vscode: the project whose file to write (default: the first --root)")
    .option("--agent <name>", "the agent's name (default: the client's name)")
    .option("--max-result <MiB>", "the largest result an agent may be handed, 1..256")
    .option("--write", "merge the registration into the client's config file, keeping a backup")
    .option(
      "--kv",
      "carry RTA_KV_IDENTITY (default <config dir>/identity.txt) so the server can open the kv store; without it the kv tools answer kv.locked",
    )
    .option("--json", "print JSON")
    .action(
      async (
        client: string,
        opts: {
          root: string[];
          project?: string;
          agent?: string;
          maxResult?: string;
          write?: boolean;
          json?: boolean;
          kv?: boolean;
        },
      ) => {
        const { install } = await import("./mcp.ts");
        cli.status = install(cli, client, opts);
      },
    );
}

/**
 * A server's start, measured: JSC collects young objects once 8 MiB have been
 * allocated since the last collection, and a stdio server allocates about
 * 8.7 MiB from exec to its first tools/list answer (the SDK's schemas alone
 * are 4 MiB, its first request 2 MiB more), so that collection fell inside
 * the handshake and marked all of it, adding 5-10 ms to a cold start. Collected
 * here, before the server's code is loaded, it marks only the command line's
 * 2 MiB, and what is allocated until the answer stays under the next bound.
 */
function collectWhileSmall(): void {
  (require("bun:jsc") as typeof import("bun:jsc")).edenGC();
}
