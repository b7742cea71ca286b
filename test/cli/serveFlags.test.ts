/**
 * What `rta mcp serve` refuses before it serves anything, run in-process: an
 * empty --root (a script's unset variable) names no directory, and is never
 * read as the directory the server starts in.
 */
import { expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { runCli } from "../support/runCli.ts";

test("an empty --root is core.input.invalid, alone or beside a root that is given, and nothing is served", async () => {
  for (const roots of [[""], [tempDir(), ""]]) {
    const r = await runCli(["mcp", "serve", ...roots.flatMap((root) => ["--root", root])]);
    expect({ roots, code: r.code, out: r.stdout, err: r.stderr }).toEqual({
      roots,
      code: 2,
      out: "",
      err: "rta: error: --root is empty (core.input.invalid)\nrta: hint: give --root a directory, or leave it out to serve the directory the server starts in\n",
    });
  }
});
