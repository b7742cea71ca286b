import { describe, expect, test } from "bun:test";
import { Client, type InMemoryTransport as ClientPipe } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { builtins } from "../../src/capabilities/builtins.ts";
import { agentLimits } from "../../src/gate/bound.ts";
import { toolListings } from "../../src/mcp/describe.ts";
import { ERAS, inspectServer } from "../../src/mcp/inspect.ts";
import { createServer, type ServeContext } from "../../src/mcp/server.ts";
import { grantFor, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const contextFor = (agent?: string): ServeContext => ({
  catalogue: catalogueOf(builtins),
  deps: testDeps(),
  session: "s",
  transport: "stdio",
  limits: agentLimits(),
  ...(agent !== undefined ? { agent } : {}),
});

describe("inspectServer", () => {
  for (const era of ERAS) {
    test(`${era}: the server's own answers, measured, with the grants the agent holds`, async () => {
      const ctx = contextFor("claude");
      const held = grantFor(ctx.deps, { target: "fs.write" });
      grantFor(ctx.deps, { target: "fs.rm", agent: "cursor" });
      const seen = await inspectServer(ctx, era, ctx.deps.clock.now());
      expect(seen.era).toBe(era);
      expect(seen.agent).toBe("claude");
      expect(seen.tools.map((t) => t.name)).toEqual(ctx.catalogue.all().map((c) => c.tool));
      expect(seen.tools.find((t) => t.name === "fs_write")?.grants?.map((g) => g.id)).toEqual([held.id]);
      // another agent's grant is not this one's
      expect(seen.tools.find((t) => t.name === "fs_rm")?.grants).toEqual([]);
      expect(seen.tools.find((t) => t.name === "fs_rm")?.access).toBe("grant");
      expect(seen.tools.find((t) => t.name === "sys_info")?.access).toBe("free");
      const sum = seen.tools.reduce((n, t) => n + t.bytes, 0);
      expect(seen.bytesPerTool).toBe(Math.round((sum / seen.tools.length) * 10) / 10);
      expect(seen.bytesPerTool).toBeLessThanOrEqual(600);
      // the answer's envelope and its newline on top of the tools
      expect(seen.listBytes).toBeGreaterThan(sum);
      expect(seen.instructions).toContain("area_thing_action");
      // rta's own resource and template first, then each read's (plain when its inputs are all optional)
      expect(seen.resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["rta://grants", "rta://sys/info"]));
      expect(seen.resources[0]?.uri).toBe("rta://grants");
      expect(seen.templates[0]?.uriTemplate).toBe("rta://capability/{name}");
      expect(seen.templates.map((r) => r.uriTemplate)).toContain(
        "rta://fs/read/{path}{?from_line,length,lines,offset}",
      );
      expect(seen.prompts.map((r) => r.name)).toEqual(["mail_check", "site_check"]);
    });
  }

  test("without an agent: no grants are looked up, and a grant's command says <your name>", async () => {
    const seen = await inspectServer(contextFor(), "2026-07-28", 0);
    expect(seen.agent).toBeUndefined();
    const rm = seen.tools.find((t) => t.name === "fs_rm");
    expect(rm?.grants).toBeUndefined();
    expect(rm?.description).toContain("`rta grant allow fs.rm --agent <your name> --ttl 5m`");
  });
});

describe("tools/list names the agent the server records the calls under", () => {
  test("a client's reported name, made into an agent name, when the server was given none", async () => {
    const ctx = contextFor();
    const [a, b] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => createServer(ctx), { transport: a });
    const client = new Client({ name: "Claude Desktop", version: "1" });
    await client.connect(b as unknown as ClientPipe);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === "fs_rm")?.description).toContain(
        "`rta grant allow fs.rm --agent Claude-Desktop --ttl 5m`",
      );
    } finally {
      await client.close();
      await handle.close();
    }
  });

  test("on 2026-07-28 the list is cacheable a minute, privately: it names the agent it is for", async () => {
    const ctx = contextFor("claude");
    const [a, b] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => createServer(ctx), { transport: a });
    const client = new Client({ name: "c", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
    await client.connect(b as unknown as ClientPipe);
    try {
      const listed = (await client.listTools()) as { ttlMs?: number; cacheScope?: string };
      expect({ ttlMs: listed.ttlMs, cacheScope: listed.cacheScope }).toEqual({ ttlMs: 60_000, cacheScope: "private" });
    } finally {
      await client.close();
      await handle.close();
    }
  });

  test("the lists kept for a catalogue are the last 16 agents': an older one is made again, equal", () => {
    const catalogue = catalogueOf(builtins);
    const first = toolListings(catalogue, undefined, undefined, "a0");
    for (let i = 1; i <= 16; i++) toolListings(catalogue, undefined, undefined, `a${i}`);
    const again = toolListings(catalogue, undefined, undefined, "a0");
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    expect(toolListings(catalogue, undefined, undefined, "a16")).toBe(
      toolListings(catalogue, undefined, undefined, "a16"),
    );
  });
});
