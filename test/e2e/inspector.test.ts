/**
 * The official MCP Inspector, in CLI mode, lists and calls tools on
 * dist/rta mcp serve in both protocol eras. The Inspector asks for a newer
 * Node than the one this project requires, so it runs under Bun here.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { tempDir } from "../support/fixtures.ts";
import { RTA } from "../support/rta.ts";

const INSPECTOR = join(
  import.meta.dir,
  "..",
  "..",
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "launcher",
  "build",
  "index.js",
);

async function inspect(era: string, args: string[]): Promise<Record<string, unknown>> {
  const home = tempDir();
  const proc = Bun.spawn(
    [
      process.execPath,
      INSPECTOR,
      "--cli",
      "--protocol-era",
      era,
      "--format",
      "json",
      "-q",
      ...args,
      "--",
      RTA,
      "mcp",
      "serve",
    ],
    {
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
      env: { PATH: process.env.PATH ?? "", HOME: home, RTA_DATA_DIR: home, RTA_CONFIG_DIR: tempDir() },
    },
  );
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`inspector exited ${code}: ${err}${out}`);
  return JSON.parse(out);
}

for (const era of ["legacy", "modern"]) {
  describe(`the MCP Inspector CLI, ${era} era`, () => {
    test("lists the tools", async () => {
      const out = (await inspect(era, ["--method", "tools/list"])) as { result: { tools: { name: string }[] } };
      expect(out.result.tools.map((t) => t.name)).toEqual(
        builtinCatalogue()
          .all()
          .map((c) => c.tool),
      );
    });

    test("calls a tool", async () => {
      const out = (await inspect(era, [
        "--method",
        "tools/call",
        "--tool-name",
        "proc_list",
        "--tool-args-json",
        '{"limit":2,"sort":"pid"}',
      ])) as {
        result: { content: { text: string }[]; isError?: boolean };
      };
      expect(out.result.isError).toBeFalsy();
      const table = JSON.parse(out.result.content[0]?.text ?? "{}");
      expect(table.type).toBe("table");
      expect(table.rows).toHaveLength(2);
    });
  });
}
