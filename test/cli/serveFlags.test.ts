/**
 * What `rta mcp serve` refuses before it serves anything, run in-process: an
 * empty --root (a script's unset variable) names no directory, and is never
 * read as the directory the server starts in; an --allow-host that is no host
 * name (an empty one let every Origin that is no URL through) is refused.
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

test("an --allow-host that is no host name is core.input.invalid, and nothing is served", async () => {
  for (const name of ["", " ", "a b", "https://rta.internal", "rta.internal/x"]) {
    // no address here (nothing listens, nothing is looked up): a name taken would be refused for the address
    const r = await runCli(["mcp", "serve", "--http", "192.0.2.1:1", "--allow-host", name]);
    expect({ name, code: r.code, out: r.stdout, err: r.stderr }).toEqual({
      name,
      code: 2,
      out: "",
      err: `rta: error: --allow-host ${JSON.stringify(name)} is not a host name (core.input.invalid)\nrta: hint: give the host name clients reach the server by, e.g. --allow-host rta.internal\n`,
    });
  }
});

test("an --http that is no HOST:PORT is core.input.invalid, and nothing is served", async () => {
  for (const address of ["127.0.0.1:99999", "a:b:c"]) {
    const r = await runCli(["mcp", "serve", "--http", address]);
    expect({ address, code: r.code, out: r.stdout, err: r.stderr }).toEqual({
      address,
      code: 2,
      out: "",
      err: `rta: error: --http ${JSON.stringify(address)} is not HOST:PORT (core.input.invalid)\nrta: hint: e.g. --http 127.0.0.1:8722\n`,
    });
  }
});
