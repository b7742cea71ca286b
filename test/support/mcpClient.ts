/**
 * Speaks MCP to the built binary with the official client, in either era.
 * The subclass of StdioClientTransport makes the client settle the era on the
 * real connection instead of starting a second, throwaway server to probe.
 */
import { Client, type ClientCapabilities } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "./fixtures.ts";
import { prepareDataDir, RTA } from "./rta.ts";

class InPlaceStdio extends StdioClientTransport {}

export type Era = "legacy" | "modern";

export interface Connected {
  client: Client;
  stderr: () => string;
  dataDir: string;
  close: () => Promise<void>;
  /** the server's process id */
  pid: () => number | null;
}

export async function connect(
  era: Era,
  args: string[] = [],
  options: {
    dataDir?: string;
    clientName?: string;
    env?: Record<string, string>;
    /** what the client declares it can do (elicitation, roots) */
    capabilities?: ClientCapabilities;
    /** handlers set on the client before it connects (an elicitation/create answer) */
    setup?: (client: Client) => void;
  } = {},
): Promise<Connected> {
  const dataDir = options.dataDir ?? tempDir();
  await prepareDataDir(options.env?.RTA_DATA_DIR ?? dataDir);
  const transport = new InPlaceStdio({
    command: RTA,
    args: ["mcp", "serve", ...args],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: dataDir,
      RTA_DATA_DIR: dataDir,
      RTA_CONFIG_DIR: tempDir(),
      ...options.env,
    },
    stderr: "pipe",
    maxBufferSize: 64 * 1024 * 1024,
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client(
    { name: options.clientName ?? "rta-e2e", version: "1.0.0" },
    {
      ...(era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" as const } } } : {}),
      ...(options.capabilities ? { capabilities: options.capabilities } : {}),
    },
  );
  options.setup?.(client);
  await client.connect(transport);
  return { client, stderr: () => err, dataDir, close: () => client.close(), pid: () => transport.pid };
}

/** The JSON value a tool result carries as its one text content. */
export function resultJson(result: unknown): Record<string, unknown> {
  const r = result as { content: { type: string; text: string }[] };
  if (r.content.length !== 1 || r.content[0]?.type !== "text") throw new Error("expected one text content");
  return JSON.parse(r.content[0].text);
}
