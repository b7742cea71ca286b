/** End to end: resources and prompts over stdio, on both eras. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ProtocolError } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`resources and prompts, ${era} era`, () => {
    let s: Connected;
    const data = tempDir();
    const config = tempDir();
    beforeAll(async () => {
      const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
      await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m", "--max-uses", "3"], { env });
      await rta(["grant", "allow", "fs.write", "--agent", "someone-else", "--ttl", "10m"], { env });
      s = await connect(era, ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    });
    afterAll(async () => {
      await s.close();
    });

    test("rta://grants holds the calling agent's own live grants, and no one else's", async () => {
      const { resources } = await s.client.listResources();
      expect(resources.map((r) => r.uri)[0]).toBe("rta://grants");
      expect(resources.filter((r) => !r.uri.startsWith("rta://grants")).every((r) => r.name.includes("_"))).toBe(true);
      const read = await s.client.readResource({ uri: "rta://grants" });
      const body = JSON.parse((read.contents[0] as { text: string }).text);
      expect(body.agent).toBe("claude");
      expect(body.grants).toEqual([
        { id: expect.any(String), capability: "note.add", until: expect.any(String), uses_left: 3 },
      ]);
      expect(JSON.stringify(body)).not.toContain("someone-else");
    });

    test("each capability's card is the template rta://capability/{name}, the card rta explain prints", async () => {
      const { resourceTemplates } = await s.client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)[0]).toBe("rta://capability/{name}");
      const read = await s.client.readResource({ uri: "rta://capability/proc.list" });
      const card = JSON.parse((read.contents[0] as { text: string }).text);
      const explained = JSON.parse((await rta(["explain", "proc.list", "--json"])).stdout);
      expect(card).toEqual(explained);
      const byTool = await s.client.readResource({ uri: "rta://capability/proc_list" });
      expect(JSON.parse((byTool.contents[0] as { text: string }).text).name).toBe("proc.list");
    });

    test("a plugin's reads join as templates (its operator-only folder left out), read through the pipeline", async () => {
      const { resourceTemplates } = await s.client.listResourceTemplates();
      const uris = resourceTemplates.map((t) => t.uriTemplate);
      expect(uris).toContain("rta://note/list{?limit}");
      expect(uris).toContain("rta://note/show/{id}");
      expect(uris.some((u) => u.startsWith("rta://note/add") || u.startsWith("rta://note/rm"))).toBe(false);
      const read = await s.client.readResource({ uri: "rta://note/list?limit=5" });
      const tool = await s.client.callTool({ name: "note_list", arguments: { limit: 5 } });
      expect((read.contents[0] as { text: string }).text).toBe((tool.content as { text: string }[])[0]?.text as string);
      expect((read.contents[0] as { mimeType: string }).mimeType).toBe("application/json");
    });

    test("an agent's card is the tool's view: no operator-only input, required as the tool's schema says", async () => {
      const { tools } = await s.client.listTools();
      for (const name of ["audit.mail", "net.dns", "http.get", "note.add", "jwt.decode"]) {
        const read = await s.client.readResource({ uri: `rta://capability/${name}` });
        const card = JSON.parse((read.contents[0] as { text: string }).text);
        const tool = tools.find((t) => t.name === card.tool);
        const schema = tool?.inputSchema as { properties: Record<string, unknown>; required?: string[] };
        expect(card.inputs.map((i: { name: string }) => i.name)).toEqual(Object.keys(schema.properties));
        expect(
          card.inputs.filter((i: { required: boolean }) => i.required).map((i: { name: string }) => i.name),
        ).toEqual(schema.required ?? []);
        const text = JSON.stringify(card);
        for (const hidden of ['"server"', '"ca_file"', '"folder"', "operator_only", "from_pipe"])
          expect(text).not.toContain(hidden);
      }
      // the person's card still lists them
      const explained = JSON.parse((await rta(["explain", "audit.mail", "--json"])).stdout);
      expect(explained.inputs.map((i: { name: string }) => i.name)).toContain("server");
    });

    test("an unknown resource is a not-found error (-32602, naming the URI)", async () => {
      let err: unknown;
      try {
        await s.client.readResource({ uri: "rta://capability/grant.allow" });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).code).toBe(-32602);
      expect((err as ProtocolError).message).toContain("rta://capability/grant.allow");
    });

    test("two prompts, each asking for the relevant reads", async () => {
      const { prompts } = await s.client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(["mail_check", "site_check"]);
      const site = await s.client.getPrompt({ name: "site_check", arguments: { host: "example.com" } });
      const text = JSON.stringify(site.messages[0]?.content);
      for (const tool of ["cert_expiry", "audit_web", "http_head"]) expect(text).toContain(tool);
      const mail = await s.client.getPrompt({ name: "mail_check", arguments: { domain: "example.com" } });
      expect(JSON.stringify(mail.messages[0]?.content)).toContain("audit_mail");
    });
  });
}
