/**
 * End to end: `rta mcp inspect` on the built binary, piped, with --json and
 * on a terminal, on both eras, against what `rta mcp serve` itself tells the
 * official client; and what the tool list costs an agent, measured on the
 * wire of a real server.
 */
import { describe, expect, test } from "bun:test";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { needsGrant } from "../../src/core/capability.ts";
import { isNeverATool } from "../../src/core/catalogue.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era } from "../support/mcpClient.ts";
import { noStack, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

/** The most bytes a tool may cost an agent in tools/list, on average (the official filesystem server: 927). */
const BYTES_PER_TOOL = 600;

const REVISION: Record<Era, string> = { legacy: "2025-11-25", modern: "2026-07-28" };

interface Seen {
  era: string;
  agent?: string;
  instructions: string;
  tools: {
    name: string;
    description: string;
    inputSchema: unknown;
    annotations: unknown;
    bytes: number;
    access: string;
    grants?: { id: string; target: string; narrowed: string[] }[];
  }[];
  listBytes: number;
  bytesPerTool: number;
  resources: { uri: string }[];
  templates: { uriTemplate: string }[];
  prompts: { name: string }[];
}

const envOf = () => ({ RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), HOME: tempDir() });

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`rta mcp inspect, ${era} era`, () => {
    test("--json is what rta mcp serve tells the official client, tool for tool, with the grants the agent holds", async () => {
      const env = envOf();
      const granted = await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "30m", "--yes"], { env });
      expect(granted.code).toBe(0);
      const hosted = await rta(["grant", "allow", "net", "--agent", "claude", "--ttl", "5m", "--host", "example.com"], {
        env,
      });
      expect(hosted.code).toBe(0);
      const r = await rta(["mcp", "inspect", "--agent", "claude", "--era", REVISION[era], "--json"], { env });
      expect(r.code).toBe(0);
      expect(r.stderr).toBe("");
      const seen = JSON.parse(r.stdout) as Seen;
      expect(seen.era).toBe(REVISION[era]);
      expect(seen.agent).toBe("claude");

      const server = await connect(era, ["--agent", "claude"], { dataDir: env.RTA_DATA_DIR, env });
      try {
        const { tools } = await server.client.listTools();
        expect(seen.instructions).toBe(server.client.getInstructions() ?? "");
        expect(
          seen.tools.map(({ name, description, inputSchema, annotations }) => ({
            name,
            description,
            inputSchema,
            annotations,
          })) as unknown[],
        ).toEqual(
          tools.map(({ name, description, inputSchema, annotations }) => ({
            name,
            description,
            inputSchema,
            annotations,
          })),
        );
        expect(seen.resources.map((x) => x.uri)).toEqual(
          (await server.client.listResources()).resources.map((x) => x.uri),
        );
        expect(seen.templates.map((x) => x.uriTemplate)).toEqual(
          (await server.client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate),
        );
        expect(seen.prompts.map((x) => x.name)).toEqual((await server.client.listPrompts()).prompts.map((x) => x.name));
      } finally {
        await server.close();
      }

      for (const t of seen.tools) {
        const cap = builtinCatalogue().byTool(t.name);
        expect(t.access).toBe(cap !== undefined && needsGrant(cap) ? "grant" : "free");
        // a tool's bytes are its JSON as the server sent it, which the client hands back unchanged
        expect(t.bytes).toBe(
          Buffer.byteLength(
            JSON.stringify({
              name: t.name,
              description: t.description,
              inputSchema: t.inputSchema,
              annotations: t.annotations,
            }),
          ),
        );
      }
      const byName = (name: string) => seen.tools.find((t) => t.name === name);
      expect(byName("fs_write")?.grants).toHaveLength(1);
      expect(byName("fs_write")?.grants?.[0]).toMatchObject({ target: "fs.write", narrowed: [] });
      expect(byName("net_dns")?.grants?.[0]).toMatchObject({ target: "net", narrowed: ["host=example.com"] });
      expect(byName("fs_rm")?.grants).toEqual([]);
      expect(byName("fs_write")?.description).toContain("`rta grant allow fs.write --agent claude --ttl 5m`");
      // the figure, and the sum it is made from
      const own = seen.tools.reduce((n, t) => n + t.bytes, 0);
      expect(seen.bytesPerTool).toBe(Math.round((own / seen.tools.length) * 10) / 10);
      expect(seen.bytesPerTool).toBeLessThanOrEqual(BYTES_PER_TOOL);
      expect(seen.listBytes).toBeGreaterThan(own);
    });

    test("piped: one tab-separated line a thing, the figure on its own line; without --agent, no grants and <your name>", async () => {
      const env = envOf();
      const r = await rta(["mcp", "inspect", "--era", REVISION[era]], { env });
      expect(r.code).toBe(0);
      const lines = r.stdout.trimEnd().split("\n");
      expect(lines[0]).toBe(`era\t${REVISION[era]}`);
      expect(lines[1]).toBe("agent\t");
      expect(lines[2]).toStartWith("instructions\trta offers an operator's capabilities as tools");
      // a description's line breaks are escaped, so a tool is one line
      const tools = lines.filter((l) => l.startsWith("tool\t"));
      expect(tools.map((l) => l.split("\t")[1])).toEqual(
        builtinCatalogue()
          .all()
          .map((c) => c.tool),
      );
      const rm = tools.find((l) => l.startsWith("tool\tfs_rm\t"))?.split("\t") ?? [];
      expect(rm.slice(0, 5)).toEqual(["tool", "fs_rm", "grant", "", ""]);
      expect(rm[5]).toMatch(/^\d+$/);
      expect(rm[6]).toContain("\\n[rta] Safety class: destructive. Needs a grant: ask the person running rta for");
      expect(rm[6]).toContain("--agent <your name> --ttl 5m");
      expect(JSON.parse(rm[7] as string)).toEqual({ destructiveHint: true, openWorldHint: false });
      // rta://grants first, then each read whose inputs are all optional as a plain resource (templates.ts)
      const resources = lines.filter((l) => l.startsWith("resource\t")).map((l) => l.split("\t")[1]);
      expect(resources[0]).toBe("rta://grants");
      expect(resources).toContain("rta://sys/info");
      expect(lines.filter((l) => l.startsWith("prompt\t")).length).toBeGreaterThan(0);
      const figure = lines.find((l) => l.startsWith("bytes_per_tool\t"))?.split("\t")[1];
      expect(Number(figure)).toBeGreaterThan(100);
      expect(Number(figure)).toBeLessThanOrEqual(BYTES_PER_TOOL);
      expect(lines.at(-1)).toMatch(/^tools_list_bytes\t\d+$/);
    });

    test("on a terminal: headed sections, each tool with its bytes, its access and its description", async () => {
      const env = envOf();
      await rta(["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "30m", "--yes"], { env });
      const lock = (await rta(["lock", "fs.move", "--agent", "claude"], { env })).stdout.trim();
      expect(lock).toMatch(/^l[0-9a-f]+$/);
      const r = await onTerminal(["mcp", "inspect", "--agent", "claude", "--era", REVISION[era]], env);
      expect(r.code).toBe(0);
      expect(r.out).toStartWith(
        `What an agent is told on ${REVISION[era]} (agent claude)\n\nInstructions\n  rta offers`,
      );
      expect(r.out).toMatch(
        /\nTools \(\d+\) {2}\d+(\.\d)? B a tool on average in tools\/list; the whole answer \d+ B\n/,
      );
      expect(r.out).toMatch(/\n {2}fs_write {2}\d+ B {2}needs a grant, held: g[0-9a-f]+\n {4}Write a file/);
      expect(r.out).toMatch(/\n {2}fs_rm {2}\d+ B {2}needs a grant, none held\n/);
      expect(r.out).toMatch(
        new RegExp(`\\n {2}fs_move {2}\\d+ B {2}locked \\(${lock}\\): refused whatever it holds\\n`),
      );
      expect(r.out).toMatch(/\n {2}sys_info {2}\d+ B {2}free\n/);
      expect(r.out).toContain(
        '    inputs: path (string, required), content (string, required), mode (string, create|overwrite|append, default "create")\n',
      );
      expect(r.out).toMatch(/\nResources \(\d+\)\n {2}rta:\/\/grants /);
      expect(r.out).toMatch(/\nResource templates \(\d+\)\n {2}rta:\/\/capability\/\{name\} /);
      expect(r.out).toContain("\n  rta://fs/read/{path}{?from_line,length,lines,offset}  Read a text file");
      expect(r.out).toContain("\nPrompts (2)\n");
    });

    test("what tools/list costs an agent, on the wire of rta mcp serve: at most 600 bytes a tool", async () => {
      const server = await connect(era, ["--agent", "claude"]);
      try {
        const { tools } = await server.client.listTools();
        const bytes = tools.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t)), 0);
        expect(tools.length).toBe(builtinCatalogue().all().length);
        expect(bytes / tools.length).toBeLessThanOrEqual(BYTES_PER_TOOL);
      } finally {
        await server.close();
      }
    });
  });
}

describe("rta mcp inspect refuses", () => {
  test("an era it does not speak, and a bad agent name, with a code and a hint", async () => {
    const era = await rta(["mcp", "inspect", "--era", "2024-11-05"]);
    expect(era.code).toBe(2);
    expect(era.stderr).toBe(
      'rta: error: --era "2024-11-05" is not a protocol revision rta speaks (core.input.option)\nrta: hint: name one of: 2025-11-25, 2026-07-28\n',
    );
    const agent = await rta(["mcp", "inspect", "--agent", "a b", "--json"]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toContain("(core.input.invalid)");
    expect(JSON.parse(agent.stdout)).toMatchObject({ type: "error", code: "core.input.invalid" });
    expect(noStack(agent.stderr)).toBe(true);
  });

  test("to be a tool: mcp_inspect is never offered, and a call to it is an unknown tool", async () => {
    expect(isNeverATool("mcp.inspect")).toBe(true);
    const server = await connect("modern", ["--agent", "claude"]);
    try {
      const { tools } = await server.client.listTools();
      expect(tools.some((t) => t.name.startsWith("mcp_"))).toBe(false);
      await expect(server.client.callTool({ name: "mcp_inspect", arguments: {} })).rejects.toMatchObject({
        code: -32602,
      });
    } finally {
      await server.close();
    }
  });
});
