import { describe, expect, test } from "bun:test";
import { closest, didYouMean, editDistance } from "../../src/core/suggest.ts";
import { runCli } from "../support/runCli.ts";

describe("closest names", () => {
  test("a prefix, or a few edits, is close; a swap of two letters is one edit", () => {
    expect(editDistance("noet", "note")).toBe(1);
    expect(editDistance("lst", "list")).toBe(1);
    expect(closest("gr", ["grant", "agent", "lock"])).toEqual(["grant"]);
    expect(closest("lst", ["list", "kill", "tree"])).toEqual(["list"]);
    expect(closest("zzz", ["grant", "lock"])).toEqual([]);
    expect(closest("grant", ["grant"])).toEqual([]);
    expect(didYouMean(["a", "b", "c"])).toBe("did you mean `a`, `b` or `c`?");
    expect(didYouMean([])).toBe("");
  });
});

describe("no dead ends on the command line", () => {
  const cases: [string[], string, string][] = [
    [["gr"], "unknown command 'gr'", "did you mean `rta grant`?"],
    [["grant", "alow"], "unknown command 'alow'", "did you mean `rta grant allow`?"],
    [["prc", "list"], "unknown command 'prc'", "did you mean `rta proc`?"],
    [["proc", "lst"], "unknown command 'lst'", "did you mean `rta proc list`?"],
    [["proc.list"], "unknown command 'proc.list'", "did you mean `rta proc list`?"],
    [["grant", "list", "--agnt", "x"], "unknown option '--agnt'", "did you mean `--agent`?"],
    [["proc", "list", "--jsn"], "unknown option '--jsn'", "did you mean `--json`?"],
    [["explain", "proc.lst"], 'no capability is named "proc.lst" (core.tool.unknown)', "`rta explain proc.list`"],
    [["lock", "proc.lst"], 'no capability or area is named "proc.lst"', "did you mean `proc.list`?"],
    [["ps"], "unknown command 'ps'", "did you mean `rta proc list`?"],
    [["ping", "example.com"], "unknown command 'ping'", "did you mean `rta net ping`?"],
    [["fs", "cat", "x"], "unknown command 'cat'", "did you mean `rta fs read`?"],
    [["explain", "cat"], 'no capability is named "cat"', "did you mean `rta explain fs.read`?"],
  ];
  for (const [args, error, hint] of cases) {
    test(`rta ${args.join(" ")}: rta's error form, with the suggestion in the hint`, async () => {
      const r = await runCli(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      const [first, second] = r.stderr.split("\n");
      expect(first).toStartWith(`rta: error: ${error}`);
      expect(second).toStartWith("rta: hint: ");
      expect(second).toContain(hint);
    });
  }

  test("a name nothing is close to gets the plain hint", async () => {
    const r = await runCli(["zzzz"]);
    expect(r.stderr).toBe(
      "rta: error: unknown command 'zzzz' (core.cli.usage)\nrta: hint: run `rta explain` to see every capability, or `rta --help`\n",
    );
  });

  test("a bare rta prints the help on stdout and exits 0", async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toStartWith("Usage: rta [options] [command]");
    expect(r.stdout).toContain("grant");
  });
});
