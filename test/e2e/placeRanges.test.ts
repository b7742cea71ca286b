/**
 * End to end: a byte range of a file never shows a piece of a place rta
 * renames. fs_read with an offset inside a line naming rta's data dir showed
 * the rest of the dir (`tmp/tmpXYZ`), and a length ending inside it showed
 * its start, since a place is renamed only where it stands whole. So did
 * fs_grep's line cut short at 4,096 characters inside the data dir.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";

for (const era of ["legacy", "modern"] as Era[]) {
  describe(`a byte range across one of rta's places, ${era} era`, () => {
    let s: Connected;
    const data = tempDir();
    const config = tempDir();
    const line = `kept in ${data} and ${config} here\n`;
    beforeAll(async () => {
      const root = tempDir();
      writeFileSync(join(root, "where.txt"), `first line\n${line}last line\n`);
      // fs_grep shows a line's first 4,096 characters: the data dir stands across that cut at every place
      for (let k = 0; k < data.length + 8; k++)
        writeFileSync(join(root, `long${k}.txt`), `${"x".repeat(4096 - k)} ${data} tail\n`);
      s = await connect(era, ["--root", root], { dataDir: data, env: { RTA_CONFIG_DIR: config } });
    });
    afterAll(async () => {
      await s?.close();
    });

    const read = async (args: Record<string, unknown>): Promise<string> => {
      const r = resultJson(await s.client.callTool({ name: "fs_read", arguments: { path: "where.txt", ...args } }));
      expect(r.type).toBe("text");
      return r.text as string;
    };

    test("is widened to the whole line, whichever edge cuts it", async () => {
      const start = "first line\n".length;
      const secret = [basename(data), basename(config)];
      for (let at = 0; at < line.length - 1; at++) {
        for (const out of [
          await read({ offset: start + at }),
          await read({ offset: start, length: at + 1 }),
          await read({ offset: start + at, length: 3 }),
        ]) {
          for (const name of secret)
            for (let i = 0; i + 4 <= name.length; i++) expect(out).not.toContain(name.slice(i, i + 4));
        }
      }
      expect(await read({ offset: start + 12 })).toContain("<data dir>");
    });

    test("fs_grep's long line is cut before the data dir, never inside it", async () => {
      const name = basename(data);
      const rows: string[] = [];
      for (let k = 0; k < data.length + 8; k++) {
        const r = resultJson(
          await s.client.callTool({ name: "fs_grep", arguments: { pattern: "^x", path: `long${k}.txt` } }),
        );
        rows.push(...(r.rows as [string, number, string][]).map(([, , text]) => text));
      }
      expect(rows.length).toBe(data.length + 8);
      for (const text of rows) {
        for (let i = 0; i + 4 <= name.length; i++) expect(text).not.toContain(name.slice(i, i + 4));
        expect(text).not.toMatch(/ \/[^ ]*\.\.\.$/);
      }
      expect(rows.some((text) => text.includes("<data dir>"))).toBe(true);
    });
  });
}
