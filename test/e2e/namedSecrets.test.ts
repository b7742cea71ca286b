/**
 * End to end: a credential spelled in a file's name is masked where fs_find
 * and fs_grep show the file's path. Their paths begin with the path the agent
 * searched (`logs/--password=x`), and a flag or a header that begins a path's
 * part, not the text, used to be shown whole, where before the paths were
 * shown from the search's own start and so masked. A note's id, made from its
 * title, spelled a credential in its title (lower-cased) beside the title masked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

/** Each secret is a word found nowhere else, so its showing anywhere is a leak. */
const NAMES = {
  "--password=Zq31Kx7Pw3Vb": "Zq31Kx7Pw3Vb",
  "Authorization: Bearer Zq32Rn4Gy8Lc": "Zq32Rn4Gy8Lc",
  "-u alice:Zq33Ut5Mh2Xe": "Zq33Ut5Mh2Xe",
  "x --token Zq34Dv3Ni6Wo": "Zq34Dv3Ni6Wo",
  "cookie=Zq35Hs9Ej4Tb": "Zq35Hs9Ej4Tb",
  "access_token: Zq36Fx1Lq8Gw": "Zq36Fx1Lq8Gw",
};

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`a credential in a file's name is masked in the paths shown, ${era} era`, () => {
    let s: Connected;
    beforeAll(async () => {
      const root = tempDir();
      mkdirSync(join(root, "logs", "deeper"), { recursive: true });
      for (const name of Object.keys(NAMES)) {
        writeFileSync(join(root, "logs", name), "found\n");
        writeFileSync(join(root, "logs", "deeper", name), "found\n");
      }
      s = await connect(era, ["--agent", "claude", "--root", root]);
    });
    afterAll(async () => {
      await s.close();
    });

    const shown = async (name: string, args: Record<string, unknown>) =>
      JSON.stringify(resultJson(await s.client.callTool({ name, arguments: args })));

    test("fs_find and fs_grep show no secret of a name, whatever path was searched", async () => {
      for (const path of ["logs", "logs/", "./logs", "logs/deeper"]) {
        const found = await shown("fs_find", { path, type: "file" });
        const grepped = await shown("fs_grep", { pattern: "found", path });
        for (const out of [found, grepped]) {
          expect(out).toContain("***");
          for (const secret of Object.values(NAMES)) expect(out).not.toContain(secret);
        }
      }
      expect(await shown("fs_find", { path: "logs", name: "--password*", depth: 1 })).toContain(
        '"logs/--password=***"',
      );
    });
  });
}

describe("a note whose title holds a credential has an id that does not spell it", () => {
  test("note_list and note_show show the title masked and an id without the secret", async () => {
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, HOME: data };
    const titles = [
      "Authorization: Bearer zq41kx7pw3vb",
      "db --password=zq42rn4gy8lc",
      "https://alice:zq43ut5mh2xe@db.test/",
    ];
    for (const title of titles) expect((await rta(["note", "add", title, "--body", "x"], { env })).code).toBe(0);
    const s = await connect("legacy", ["--agent", "claude"], { dataDir: data });
    try {
      const listed = resultJson(await s.client.callTool({ name: "note_list", arguments: {} })) as {
        rows: [string, string][];
      };
      expect(listed.rows).toHaveLength(3);
      const shown = JSON.stringify(listed);
      for (const secret of ["zq41kx7pw3vb", "zq42rn4gy8lc", "zq43ut5mh2xe"]) expect(shown).not.toContain(secret);
      expect(shown).toContain("authorization-");
      const id = listed.rows.find((r) => r[1] === "Authorization: ***")?.[0] as string;
      expect(id).toMatch(/^authorization-[0-9a-f]{6}$/);
      const one = JSON.stringify(resultJson(await s.client.callTool({ name: "note_show", arguments: { id } })));
      expect(one).not.toContain("zq41kx7pw3vb");
    } finally {
      await s.close();
    }
  });
});
