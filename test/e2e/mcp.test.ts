/**
 * End to end: dist/rta mcp serve, spoken to by the official MCP client, on
 * both protocol eras.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "@modelcontextprotocol/client";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { needsGrant } from "../../src/core/capability.ts";
import { isNeverATool } from "../../src/core/catalogue.ts";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const TOKEN = `${b64({ alg: "HS256" })}.${b64({ sub: "alice", exp: 4102444800 })}.c2ln`;

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`mcp serve, ${era} era`, () => {
    let s: Connected;
    beforeAll(async () => {
      s = await connect(era, ["--agent", "claude"]);
    });
    afterAll(async () => {
      await s.close();
    });

    test("the era is the one asked for", () => {
      expect(s.client.getProtocolEra()).toBe(era);
      expect(s.client.getNegotiatedProtocolVersion()).toBe(era === "modern" ? "2026-07-28" : "2025-11-25");
    });

    test("the instructions say once what is true of every tool", () => {
      const text = s.client.getInstructions() ?? "";
      expect(text).toContain("area_thing_action");
      expect(text).toContain(`The areas offered here: ${builtinCatalogue().areas().join(", ")}.`);
      expect(text).toContain('"total" counts every row');
      expect(text).toContain('"code","message","hint"');
      expect(text).toContain("you have no terminal");
      expect(text).toContain("refused until that person issues a grant");
      expect(text).toContain("under the roots it was started with");
    });

    test("tools/list: every tool in code-point name order, annotated, described, never-a-tool names absent", async () => {
      const { tools } = await s.client.listTools();
      const names = tools.map((t) => t.name);
      expect(names).toEqual(
        builtinCatalogue()
          .all()
          .map((c) => c.tool),
      );
      expect([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(names);
      expect(names.some(isNeverATool)).toBe(false);
      for (const tool of tools) {
        const cap = builtinCatalogue().byTool(tool.name);
        if (!cap) throw new Error(`no capability behind ${tool.name}`);
        // as the spec reads a hint left out (readOnly false, destructive true, openWorld true); a non-read says
        // destructive outright, and every tool says open-world, so a client that takes a missing hint as false
        // never reads a tool as safer than it is
        const hints = { readOnlyHint: false, destructiveHint: true, openWorldHint: true, ...tool.annotations };
        expect(hints.readOnlyHint).toBe(cap.safety === "read");
        if (cap.safety !== "read") expect(tool.annotations?.destructiveHint).toBe(cap.safety === "destructive");
        expect(tool.annotations?.openWorldHint).toBe(cap.reaches !== undefined || cap.offsite !== undefined);
        expect(tool.title).toBeUndefined();
        expect(tool.annotations?.title).toBeUndefined();
        expect(tool.description?.split("\n")[0]).toBe(/[.!?]$/.test(cap.summary) ? cap.summary : `${cap.summary}.`);
        expect(tool.description).toEndWith(
          needsGrant(cap)
            ? `[rta] Safety class: ${cap.safety}.${cap.reveals ? " The answer is the stored value itself." : ""} Needs a grant${cap.safety !== "read" ? "" : cap.reaches ? `, as it reaches the destination you name in ${cap.reaches}` : ", as it reveals a stored secret"}: ask the person running rta for \`rta grant allow ${cap.name} --agent claude --ttl 5m\`.`
            : `[rta] Safety class: read.${cap.offsite ? ` It asks ${cap.offsite}, a fixed service you cannot aim.` : ""} Free to call.`,
        );
        expect(tool.outputSchema).toBeUndefined();
        expect(tool.inputSchema.type).toBe("object");
      }
      const jwt = tools.find((t) => t.name === "jwt_decode");
      expect(jwt?.inputSchema.required).toEqual(["token"]);
      expect(jwt?.description).toContain("\nAlso called: bearer token");
      const proc = tools.find((t) => t.name === "proc_list");
      expect(proc?.inputSchema.properties?.sort).toMatchObject({ enum: ["cpu", "mem", "pid"] });
    });

    test("jwt_decode and proc_list answer one JSON text, with no structured copy", async () => {
      const jwt = await s.client.callTool({ name: "jwt_decode", arguments: { token: TOKEN } });
      expect(jwt.isError).toBeFalsy();
      expect(jwt.structuredContent).toBeUndefined();
      expect(resultJson(jwt)).toMatchObject({ type: "object", value: { claims: { sub: "alice" }, expired: false } });
      const procs = resultJson(await s.client.callTool({ name: "proc_list", arguments: { sort: "pid", limit: 2 } }));
      expect(procs).toMatchObject({ type: "table", columns: ["pid", "user", "cpu", "mem", "command"] });
      expect((procs.rows as unknown[][])[0]?.[0]).toBe(1);
      expect(procs.total as number).toBeGreaterThan(2);
    });

    test("a wrong shape is an isError result with core.mcp.badargs, so the model can correct itself", async () => {
      const r = await s.client.callTool({ name: "proc_list", arguments: { limit: "ten" } });
      expect(r.isError).toBe(true);
      expect(resultJson(r)).toEqual({
        type: "error",
        code: "core.mcp.badargs",
        message: 'proc_list: argument "limit" must be an integer',
        hint: "proc_list takes: sort (string: cpu|mem|pid), limit (integer 1..1000)",
      });
      const unknownArg = resultJson(await s.client.callTool({ name: "sys_info", arguments: { verbose: true } }));
      expect(unknownArg.code).toBe("core.mcp.badargs");
      const range = resultJson(await s.client.callTool({ name: "proc_list", arguments: { limit: 0 } }));
      expect(range.code).toBe("core.input.range");
      const missing = resultJson(await s.client.callTool({ name: "jwt_decode", arguments: {} }));
      expect(missing.code).toBe("core.input.missing");
    });

    test("an unknown tool is a protocol error naming nothing else; a never-a-tool name gets the same", async () => {
      const errorOf = async (name: string) => {
        try {
          await s.client.callTool({ name, arguments: {} });
        } catch (err) {
          return err as ProtocolError;
        }
        throw new Error("expected an error");
      };
      const made = await errorOf("grant_allowx");
      const never = await errorOf("grant_allow");
      expect(made).toBeInstanceOf(ProtocolError);
      expect(made.code).toBe(-32602);
      expect(never.code).toBe(made.code);
      expect(never.message.replace("grant_allow", "X")).toBe(made.message.replace("grant_allowx", "X"));
      expect(made.message).not.toMatch(/did you mean/i);
    });

    test("the banner names the stdio server, the roots and the record with its session; the record holds every call", async () => {
      const lines = s.stderr().split("\n");
      expect(lines[0]).toBe("rta mcp server listening on stdio");
      expect(lines[1]).toBe(`path arguments confined to: ${process.cwd()}`);
      const m = lines[2]?.match(/^record: (.+) \(session (\w+)\)$/);
      expect(m).not.toBeNull();
      const [, file, session] = m as RegExpMatchArray;
      expect(file).toBe(join(s.dataDir, "agent-log.jsonl"));
      const rec = readRecord(file as string).lines.filter((l) => !l.kind);
      expect(readRecord(file as string).lines[0]).toMatchObject({
        kind: "start",
        session,
        seq: 1,
        pid: expect.any(Number),
      });
      expect(rec.length).toBeGreaterThan(5);
      expect(rec.every((l) => l.session === session && l.agent === "claude" && l.transport === "stdio")).toBe(true);
      expect(rec.find((l) => l.capability === "grant_allow")).toMatchObject({
        outcome: "core.tool.unknown",
        probe: true,
      });
      expect(rec.find((l) => l.capability === "proc_list" && l.outcome === "core.mcp.badargs")?.args).toEqual([
        "limit",
      ]);
      expect(JSON.stringify(rec)).not.toContain(TOKEN);
    });
  });
}

describe("mcp serve, without --agent", () => {
  test("the agent is the client's reported name, and each server process has its own session", async () => {
    const dataDir = (await import("../support/fixtures.ts")).tempDir();
    for (const era of ["legacy", "modern"] as Era[]) {
      const s = await connect(era, [], { dataDir, clientName: `client-${era}` });
      await s.client.callTool({ name: "sys_info", arguments: {} });
      await s.close();
    }
    const lines = readRecord(join(dataDir, "agent-log.jsonl")).lines.filter((l) => !l.kind);
    expect(lines.map((l) => [l.agent, l.client, l.seq])).toEqual([
      // start 1, then the call: a free read, whole in its one outcome line, 2
      ["client-legacy", "client-legacy 1.0.0", 2],
      ["client-modern", "client-modern 1.0.0", 2],
    ]);
    expect(lines[0]?.session).not.toBe(lines[1]?.session);
  });
});

test("a hint an agent gets names tools by their tool names", async () => {
  const s = await connect("modern", ["--agent", "claude"]);
  try {
    const r = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: "no-such-file.txt" } }));
    expect(r).toMatchObject({ code: "fs.notfound", hint: "fs_list shows what is there" });
  } finally {
    await s.close();
  }
});

test("the banner says a root whose name holds a terminal control escaped, so it cannot act on the person's terminal", async () => {
  const root = join(tempDir(), "evil\x1b]0;owned\x07\x1b[2Jdir");
  mkdirSync(root);
  const s = await connect("modern", ["--agent", "claude", "--root", root]);
  try {
    await s.client.callTool({ name: "sys_info", arguments: {} });
    expect(s.stderr()).toContain(
      `path arguments confined to: ${root.replace("evil\x1b]0;owned\x07\x1b[2J", "evil\\x1b]0;owned\\x07\\x1b[2J")}\n`,
    );
    expect(s.stderr()).not.toContain("\x1b");
  } finally {
    await s.close();
  }
});
