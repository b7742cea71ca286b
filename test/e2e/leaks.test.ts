/**
 * End to end: small leaks of where rta keeps things. A name that is not a
 * tool is never echoed (a name that is one of rta's places used to come back
 * renamed, so a right guess was confirmed), and over HTTP the server's roots
 * and dirs are named to a remote client only as <root N>, <data dir> and
 * <config dir>, in its own command line too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { type RunningHttp, startHttp } from "../support/httpServer.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";

/** The error a tools/call of `name` ends in, as the client sees it. */
async function unknownToolError(
  client: Client,
  name: string,
): Promise<{ code: number; message: string; data: unknown }> {
  try {
    await client.callTool({ name, arguments: {} });
  } catch (err) {
    expect(err).toBeInstanceOf(ProtocolError);
    const e = err as ProtocolError;
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error(`expected ${name} to be refused`);
}

/** Every probe must get the answer a made-up name gets, and none may say the name back. */
async function expectSameAnswers(client: Client, names: string[]): Promise<void> {
  const baseline = await unknownToolError(client, "no_such_tool_here");
  expect(baseline.code).toBe(-32602);
  expect(baseline.message).toContain("unknown tool");
  expect(baseline.message).not.toContain("no_such_tool_here");
  expect(baseline.data).toEqual({ code: "core.tool.unknown", hint: expect.stringContaining("tools/list") });
  for (const name of names) {
    const answer = await unknownToolError(client, name);
    expect(answer).toEqual(baseline);
    expect(answer.message).not.toContain("<");
  }
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`a name that is not a tool, stdio, ${era} era`, () => {
    test("is answered in the same words whether it is a guess, a never-a-tool name or one of rta's places", async () => {
      const data = tempDir();
      const config = tempDir();
      const root = tempDir();
      const s = await connect(era, ["--root", root], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      try {
        await expectSameAnswers(s.client, [
          data,
          `${data}/kv.age`,
          config,
          root,
          "/nope/guess",
          "/tmp",
          "grant_allow",
          "fs.read",
          "",
        ]);
      } finally {
        await s.close();
      }
    });
  });
}

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`an argument a tool does not take, stdio, ${era} era`, () => {
    test("is refused in the same words whether its name is a guess or one of rta's places", async () => {
      const data = tempDir();
      const config = tempDir();
      const s = await connect(era, ["--root", tempDir()], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      // the refusal names the argument; one named after rta's data dir used to come back as <data dir>
      const refusal = async (name: string) => {
        const r = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: "x", [name]: 1 } }));
        expect(r.code).toBe("core.mcp.badargs");
        return JSON.stringify(r).replaceAll(JSON.stringify(name).slice(1, -1), "NAME");
      };
      try {
        const baseline = await refusal("/nope/guess");
        for (const name of [data, `${data}/kv.age`, config, "/tmp/elsewhere"])
          expect(await refusal(name)).toBe(baseline);
        expect(baseline).not.toContain("<");
      } finally {
        await s.close();
      }
    });
  });
}

describe("over HTTP", () => {
  let srv: RunningHttp;
  let token = "";
  const data = tempDir();
  const config = tempDir();
  const first = tempDir();
  const second = tempDir();
  beforeAll(async () => {
    mkdirSync(join(first, "docs"));
    writeFileSync(
      join(first, "docs", "places.txt"),
      [
        `first ${first}/docs`,
        `second ${second}`,
        `data ${data}/gate.db`,
        `config ${config}`,
        `near ${first}-old`,
        "",
      ].join("\n"),
    );
    // the second as a person might type it: the listing shows this spelling, not the resolved one
    srv = await startHttp(["--root", first, "--root", `${dirname(second)}/./${basename(second)}/`], { data, config });
    token = await srv.token("remote");
  });
  afterAll(async () => {
    await srv.stop();
  });

  async function client(era: Era): Promise<Client> {
    const c = new Client(
      { name: "leaks-e2e", version: "1" },
      era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
    );
    await c.connect(
      new StreamableHTTPClientTransport(new URL(srv.url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return c;
  }

  const places = () => [first, second, data, config, realpathSync(first), realpathSync(data), basename(second)];

  for (const era of ["legacy", "modern"] as Era[]) {
    test(`${era}: proc_list shows the server's own command line with its roots as <root 1> and <root 2>`, async () => {
      const c = await client(era);
      try {
        const out = resultJson(await c.callTool({ name: "proc_list", arguments: { limit: 1000 } }));
        const rows = out.rows as unknown[][];
        const own = rows.find((r) => String(r[0]) === String(srv.proc.pid));
        expect(own?.[4]).toContain("--root <root 1> --root <root 2>");
        const text = JSON.stringify(out);
        for (const place of places()) expect(text).not.toContain(place);
      } finally {
        await c.close();
      }
    });

    test(`${era}: a result naming the roots and dirs names them only as places of their own`, async () => {
      const c = await client(era);
      try {
        const read = resultJson(await c.callTool({ name: "fs_read", arguments: { path: "docs/places.txt" } }));
        expect(read.text).toBe(
          [
            "first <root 1>/docs",
            "second <root 2>",
            "data <data dir>/gate.db",
            "config <config dir>",
            `near ${first}-old`, // another path: only a place standing as a path of its own is renamed
            "",
          ].join("\n"),
        );
        const grep = JSON.stringify(
          resultJson(await c.callTool({ name: "fs_grep", arguments: { pattern: "data|config|second", path: "docs" } })),
        );
        for (const place of [second, data, config]) expect(grep).not.toContain(place);
      } finally {
        await c.close();
      }
    });

    test(`${era}: a name that is not a tool is not echoed, a root's or a dir's no more than a guess`, async () => {
      const c = await client(era);
      try {
        await expectSameAnswers(c, [data, config, first, second, "/nope/guess", "grant_allow"]);
      } finally {
        await c.close();
      }
    });

    test(`${era}: the instructions name no root and say how paths are shown`, async () => {
      const c = await client(era);
      try {
        const said = c.getInstructions() ?? "";
        for (const place of places()) expect(said).not.toContain(place);
        expect(said).toContain("<root 1>");
      } finally {
        await c.close();
      }
    });
  }
});
