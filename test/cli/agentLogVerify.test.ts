import { describe, expect, test } from "bun:test";
import { runCli } from "../support/runCli.ts";

describe("rta agent log --verify", () => {
  test("with a filter or --follow is refused as usage, not run on the whole record with them left out", async () => {
    for (const other of [["--follow"], ["--agent", "x"], ["--since", "1h"], ["--code", "ok"], ["--session", "s"]]) {
      const r = await runCli(["agent", "log", "--verify", ...other]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).toStartWith(`rta: error: option '--verify' cannot be used with option '${other[0]}`);
      expect(r.stderr).toContain("(core.cli.usage)\nrta: hint: run `rta agent log --help` to see what it takes\n");
    }
  });

  test("alone still checks the record", async () => {
    const r = await runCli(["agent", "log", "--verify"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith("record verified: 0 lines in 0 sessions");
  });
});
