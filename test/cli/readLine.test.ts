/**
 * readLineSync: the answer to a question asked at a terminal is one whole
 * line. A line over 1 KiB is no answer, and is still taken whole, so none of
 * it is left for whatever reads the terminal next (the shell, which would run it).
 */
import { expect, test } from "bun:test";
import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readLineSync } from "../../src/cli/io.ts";
import { tempDir } from "../support/fixtures.ts";

test("a line over 1 KiB is no answer and is taken whole: the next line is the next", () => {
  const file = join(tempDir(), "typed");
  writeFileSync(file, `y${" ".repeat(3000)}\nnext\r\n`);
  const fd = openSync(file, "r");
  try {
    expect(readLineSync(fd)).toBe("");
    expect(readLineSync(fd)).toBe("next");
    expect(readLineSync(fd)).toBe("");
  } finally {
    closeSync(fd);
  }
});
