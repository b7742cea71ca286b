/**
 * End to end: an operator with many profiles for one area does not make every
 * tools/list carry all their names on every tool of it. A tool's description
 * names a few; the card (read on demand) names them all.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

const COUNT = 200;
const names = Array.from({ length: COUNT }, (_, i) => `team-${String(i).padStart(3, "0")}-notes-for-the-long-name`);

for (const era of ["legacy", "modern"] as Era[]) {
  test(`two hundred profiles for note, ${era} era: each tool names three of them and points at its card`, async () => {
    const config = tempDir();
    writeFileSync(join(config, "config.toml"), names.map((n) => `[profiles.${n}]\narea = "note"\n`).join(""));
    const s = await connect(era, ["--agent", "claude"], { env: { RTA_CONFIG_DIR: config } });
    try {
      const { tools } = await s.client.listTools();
      const noteList = tools.find((t) => t.name === "note_list")?.description ?? "";
      expect(noteList).toContain(
        `Naming profile ${names.slice(0, 3).join(", ")} or another of the ${COUNT} set up for it (rta://capability/note.list names them) needs a grant issued for that profile`,
      );
      expect(noteList).not.toContain(names[3] as string);
      for (const tool of tools) expect((tool.description ?? "").length).toBeLessThan(1500);
      const read = await s.client.readResource({ uri: "rta://capability/note.list" });
      const card = JSON.parse((read.contents[0] as { text: string }).text);
      expect(Object.keys(card.with_profile)).toEqual(names);
    } finally {
      await s.close();
    }
  });
}
