/**
 * End to end: what a profile costs, as a card and an agent say it, with and
 * without one configured: `rta explain` (text, --json, the catalogue), the
 * `rta://capability/{name}` resource, the tool's description and schema, and
 * the instructions at the handshake, on both eras.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

const CONNECTION = '[connections.work-notes]\narea = "note"\nfolder = "/nowhere/notes"\n';
const PROFILE = '[profiles.work]\narea = "note"\nconnection = "work-notes"\n';
const SENTENCE = "Naming a profile with profile needs a grant issued for that exact profile";

function configDir(text: string): string {
  const dir = tempDir();
  writeFileSync(join(dir, "config.toml"), text);
  return dir;
}

const withProfile = () => configDir(CONNECTION + PROFILE);
/** a connection no profile names: no call can reach it */
const connectionOnly = () => configDir(CONNECTION);

async function explainJson(config: string, args: string[]): Promise<Record<string, unknown>> {
  const r = await rta(["explain", ...args, "--json"], { env: { RTA_CONFIG_DIR: config, RTA_DATA_DIR: tempDir() } });
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout);
}

describe("rta explain with a connection a profile names", () => {
  test("the card says a call through the profile costs a grant, as text and as JSON", async () => {
    const config = withProfile();
    const text = await onTerminal(["explain", "note.list"], { RTA_CONFIG_DIR: config, RTA_DATA_DIR: tempDir() });
    expect(text.code).toBe(0);
    expect(text.out).toContain("safety    read, free (mcp); grant required (mcp) with profile work\n");
    const write = await onTerminal(["explain", "note.add"], { RTA_CONFIG_DIR: config, RTA_DATA_DIR: tempDir() });
    expect(write.out).toContain(
      "safety    write, grant required (mcp); with profile work, a grant issued for that profile\n",
    );
    const card = await explainJson(config, ["note.list"]);
    expect(card.mcp).toBe("free (mcp)");
    expect(card.with_profile).toEqual({ work: "grant required (mcp)" });
  });

  test("the catalogue says it on each capability of the area, and on no other", async () => {
    const config = withProfile();
    const text = await onTerminal(["explain"], { RTA_CONFIG_DIR: config, RTA_DATA_DIR: tempDir() });
    expect(text.out).toContain("[read, free (mcp); grant required (mcp) with profile work]");
    const lines = text.out.split("\n").filter((l) => l.includes("with profile work"));
    expect(lines.map((l) => l.trim().split(" ")[0])).toEqual(["note.add", "note.list", "note.rm", "note.show"]);
    const all = (await explainJson(config, [])) as { areas: { capabilities: Record<string, unknown>[] }[] };
    const listed = all.areas.flatMap((a) => a.capabilities);
    expect(listed.find((c) => c.name === "note.list")?.with_profile).toEqual({ work: "grant required (mcp)" });
    expect(listed.filter((c) => c.with_profile !== undefined)).toHaveLength(4);
  });
});

describe("rta explain with no profile configured", () => {
  test("a connection no profile names changes nothing: the card says free (mcp) alone", async () => {
    const config = connectionOnly();
    const text = await onTerminal(["explain", "note.list"], { RTA_CONFIG_DIR: config, RTA_DATA_DIR: tempDir() });
    expect(text.out).toContain("safety    read, free (mcp)\n");
    expect(text.out).not.toContain("with profile");
    const card = await explainJson(config, ["note.list"]);
    expect(card.mcp).toBe("free (mcp)");
    expect(card.with_profile).toBeUndefined();
    expect(JSON.stringify(await explainJson(config, []))).not.toContain("with_profile");
  });

  test("a config that does not read says nothing of profiles, and the card is still shown", async () => {
    const config = configDir('[profiles.work\narea = "note"');
    const card = await explainJson(config, ["note.list"]);
    expect(card.mcp).toBe("free (mcp)");
    expect(card.with_profile).toBeUndefined();
  });
});

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`what an agent is told of profiles, ${era} era`, () => {
    test("with a profile: the instructions, the tool's description and schema, and the card say it", async () => {
      const s = await connect(era, ["--agent", "claude"], { env: { RTA_CONFIG_DIR: withProfile() } });
      try {
        expect(s.client.getInstructions()).toContain(SENTENCE);
        const { tools } = await s.client.listTools();
        const noteList = tools.find((t) => t.name === "note_list");
        expect(Object.keys(noteList?.inputSchema.properties ?? {})).toEqual(["limit", "profile"]);
        const [own, rtas] = (noteList?.description ?? "").split("[rta]");
        expect(own).not.toContain("profile work");
        expect(rtas).toContain("Free to call. Naming profile work needs a grant issued for that profile:");
        expect(rtas).toContain("`rta grant allow note.list --agent claude --profile work --ttl 5m`");
        // an area no profile is set up for is told nothing of one
        expect(tools.filter((t) => t.description?.includes("Naming profile")).map((t) => t.name)).toEqual([
          "note_add",
          "note_list",
          "note_rm",
          "note_show",
        ]);
        const read = await s.client.readResource({ uri: "rta://capability/note.list" });
        const card = JSON.parse((read.contents[0] as { text: string }).text);
        expect(card.mcp).toBe("free (mcp)");
        expect(card.with_profile).toEqual({ work: "grant required (mcp)" });
        expect(card.inputs.map((i: { name: string }) => i.name)).toEqual(["limit", "profile"]);
      } finally {
        await s.close();
      }
    });

    test("with none: no sentence, no profile input, no cost on the card; a profile sent anyway is refused", async () => {
      const folder = tempDir();
      const config = configDir(`[connections.work-notes]\narea = "note"\nfolder = "${folder}"\n`);
      const data = tempDir();
      const env = { RTA_CONFIG_DIR: config, RTA_DATA_DIR: data };
      const allow = ["grant", "allow", "note.add", "--agent", "claude", "--ttl", "5m", "--profile", "work"];
      expect((await rta(allow, { env })).code).toBe(0);
      const s = await connect(era, ["--agent", "claude"], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
      try {
        expect(s.client.getInstructions()).not.toContain("profile");
        const { tools } = await s.client.listTools();
        for (const tool of tools) {
          expect(Object.keys(tool.inputSchema.properties ?? {})).not.toContain("profile");
          expect(tool.description).not.toContain("Naming profile");
        }
        const read = await s.client.readResource({ uri: "rta://capability/note.list" });
        const card = JSON.parse((read.contents[0] as { text: string }).text);
        expect(card.with_profile).toBeUndefined();
        expect(card.inputs.map((i: { name: string }) => i.name)).toEqual(["limit"]);
        // granted, the profile is still one the config does not set up (stage 7); ungranted, stage 6 refuses it
        const sent = await s.client.callTool({
          name: "note_add",
          arguments: { title: "t", body: "b", profile: "work" },
        });
        expect(sent.isError).toBe(true);
        expect(resultJson(sent).code).toBe("core.profile.unknown");
        const listed = await s.client.callTool({ name: "note_list", arguments: { profile: "work" } });
        expect(resultJson(listed).code).toBe("core.grant.required");
        expect(readdirSync(folder)).toEqual([]);
        // a bad argument is told what the tool takes as it was published: no profile
        const typo = resultJson(await s.client.callTool({ name: "note_list", arguments: { limt: 3 } }));
        expect(typo.code).toBe("core.mcp.badargs");
        expect(typo.hint).toBe("note_list takes: limit (integer 1..1000)");
      } finally {
        await s.close();
      }
    });
  });
}
