import { describe, expect, test } from "bun:test";
import pkg from "../../package.json";
import { builtins } from "../../src/capabilities/builtins.ts";
import { noteCatalogue } from "../support/plugins.ts";
import { noStack } from "../support/rta.ts";
import { onScreen, runCli } from "../support/runCli.ts";

/** What runCli offers: the built-ins and the note plugin. */
const catalogue = await noteCatalogue();

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const TOKEN = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "alice", exp: 4102444800 })}.c2ln`;

describe("rta --version and explain", () => {
  test("--version prints the package version", async () => {
    const r = await runCli(["--version"]);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  test("explain lists the capabilities by area and the never-a-tool section", async () => {
    const r = await runCli(["explain", "--json"], { env: { NO_COLOR: "1" } });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.areas.map((a: { area: string }) => a.area)).toEqual(catalogue.areas());
    const names = j.areas.flatMap((a: { capabilities: { name: string }[] }) => a.capabilities.map((c) => c.name));
    expect(names).toEqual(catalogue.all().map((c) => c.name));
    expect(j.never_a_tool).toContain("grant (every verb)");
    expect(j.never_a_tool).toContain("kv copy");
  });

  test("explain proc.list --json is the card as JSON", async () => {
    const r = await runCli(["explain", "proc.list", "--json"]);
    expect(r.code).toBe(0);
    const card = JSON.parse(r.stdout);
    expect(card).toMatchObject({
      name: "proc.list",
      tool: "proc_list",
      command: "rta proc list",
      safety: "read",
      mcp: "free (mcp)",
      result: { shape: "table" },
    });
    expect(card.inputs).toEqual([
      expect.objectContaining({ name: "sort", options: ["cpu", "mem", "pid"], default: "cpu", required: false }),
      expect.objectContaining({ name: "limit", range: [1, 1000], default: 50, required: false }),
    ]);
    expect(card.examples.length).toBeGreaterThan(0);
  });

  test("explain of an unknown capability is core.tool.unknown", async () => {
    const r = await runCli(["explain", "nope.thing"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.tool.unknown)");
    // errors go to stderr, piped or not, as for every other command
    expect(r.stdout).toBe("");
  });

  test("explain of an area lists its capabilities, as a plugin's author is told to check them", async () => {
    const area = await runCli(["explain", "proc"]);
    expect(area.code).toBe(0);
    expect(
      area.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => l.split("\t")[0]),
    ).toEqual(["proc.kill", "proc.list"]);
    const json = JSON.parse((await runCli(["explain", "proc", "--json"])).stdout);
    expect(json.areas.map((a: { area: string }) => a.area)).toEqual(["proc"]);
    expect(json.never_a_tool).toEqual([]);
  });
});

describe("refusals on the command line", () => {
  test("proc list --limit 0 is core.input.range, listing what is allowed, with no stack trace", async () => {
    const r = await runCli(["proc", "list", "--limit", "0"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "rta: error: --limit is 0, outside 1..1000 (core.input.range)\nrta: hint: give --limit a number from 1 to 1000\n",
    );
  });

  test("a command's help spells its inputs as a person types them", async () => {
    const r = await runCli(["fs", "read", "--help"]);
    expect(r.stdout).toContain("--from-line <from-line>");
    expect(r.stdout).not.toContain("from_line");
  });

  test("proc list --sort size is core.input.option, listing the options", async () => {
    const r = await runCli(["proc", "list", "--sort", "size"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.input.option)");
    expect(r.stderr).toContain("rta: hint: --sort is one of: cpu, mem, pid");
  });

  test("with --json the error is also printed on stdout as a value", async () => {
    const r = await runCli(["proc", "list", "--limit", "0", "--json"]);
    expect(JSON.parse(r.stdout)).toEqual({
      type: "error",
      code: "core.input.range",
      message: "--limit is 0, outside 1..1000",
      hint: "give --limit a number from 1 to 1000",
    });
  });

  test("bad input of every kind gets a code and a hint, never a stack trace", async () => {
    const cases: [string[], string, number][] = [
      [["proc", "list", "--limit", "ten"], "core.input.invalid", 2],
      [["proc", "list", "--limit"], "core.cli.usage", 2],
      [["proc", "list", "--bogus"], "core.cli.usage", 2],
      [["nope"], "core.cli.usage", 2],
      [["jwt", "decode", "a.b"], "jwt.malformed", 2],
      [["jwt", "decode", ""], "core.input.missing", 2],
      [["jwt", "decode", "x".repeat(100_000)], "jwt.malformed", 2],
      [["proc", "list", "--limit", "1e400"], "core.input.invalid", 2],
    ];
    for (const [args, code, exit] of cases) {
      const r = await runCli(args);
      expect({ args, code: r.code }).toEqual({ args, code: exit });
      expect(r.stderr).toContain(`(${code})`);
      expect(r.stderr).toMatch(/^rta: hint: .+$/m);
      expect(noStack(r.stderr)).toBe(true);
    }
  });

  test("a token piped in larger than the pipe limit is refused while it is read", async () => {
    const r = await runCli(["jwt", "decode"], { stdin: "x".repeat(2 * 1024 * 1024) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.input.toolarge)");
  });
});

describe("capabilities from the command line", () => {
  test("a token piped in and a token as an argument print the same JSON", async () => {
    const piped = await runCli(["jwt", "decode", "--json"], { stdin: `${TOKEN}\n` });
    const arg = await runCli(["jwt", "decode", TOKEN, "--json"]);
    expect(piped.code).toBe(0);
    expect(arg.code).toBe(0);
    expect(piped.stdout).toBe(arg.stdout);
    expect(JSON.parse(arg.stdout).value.claims).toEqual({ sub: "alice", exp: 4102444800 });
  });

  test("no token and nothing piped in is core.input.missing", async () => {
    const r = await runCli(["jwt", "decode"], { stdin: "" });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("token is empty (core.input.missing)");
  });

  test("proc list, sys info and disk usage answer JSON with the declared shape", async () => {
    const procs = JSON.parse((await runCli(["proc", "list", "--limit", "3", "--sort", "pid", "--json"])).stdout);
    expect(procs.type).toBe("table");
    expect(procs.rows).toHaveLength(3);
    expect(procs.total).toBeGreaterThanOrEqual(3);
    expect(procs.rows[0].pid).toBe(1);
    const info = JSON.parse((await runCli(["sys", "info", "--json"])).stdout);
    expect(info.type).toBe("object");
    expect(info.value.memory.total).toBeGreaterThan(0);
    const disks = JSON.parse((await runCli(["disk", "usage", "--json"])).stdout);
    expect(disks.rows.some((r: { mount: string }) => r.mount === "/")).toBe(true);
  });

  test("every declared example of a free read that needs no pipe, names no record and reaches nowhere runs", async () => {
    // A read that reaches out is left out: tests send packets nowhere but loopback. So is one that asks a fixed
    // service (endoflife.date, osv.dev) or a cluster: its examples are run against stand-ins in test/e2e.
    for (const cap of builtins.filter(
      (c) => c.safety === "read" && c.record === undefined && c.reaches === undefined && c.offsite === undefined,
    )) {
      for (const ex of cap.examples) {
        if (ex.command.includes("|") || ex.command.includes("$")) continue;
        // the card's quotes are the shell's: a word is what the shell would hand rta
        const words = ex.command
          .split(" ")
          .slice(1)
          .map((w) => w.replace(/^"(.*)"$/, "$1"));
        const r = await runCli(words);
        // a note about the content ("more lines follow") is not a failure
        const stderr = r.stderr.replace(/^rta: note: .*\n/gm, "");
        expect({ example: ex.command, code: r.code, stderr }).toEqual({
          example: ex.command,
          code: 0,
          stderr: "",
        });
      }
    }
  });
});

describe("on a terminal", () => {
  // The factory's terminal is a terminal, so a command renders for a person; the screen holds both streams.
  async function onTty(args: string[], env: Record<string, string> = {}): Promise<string> {
    return (await onScreen(args, { env: { TERM: "xterm", ...env } })).screen;
  }

  test("a table is a grid with a count of what was cut; NO_COLOR leaves no escape codes", async () => {
    const out = await onTty(["proc", "list", "--limit", "2"], { NO_COLOR: "1" });
    expect(out).toMatch(/^PID\s+USER\s+CPU\s+MEM\s+COMMAND$/m);
    expect(out).toMatch(/^rta: note: showing 2 of \d+; --limit shows more$/m);
    expect(out).not.toContain("\x1b[");
  });

  test("colour is used on a terminal unless NO_COLOR is set", async () => {
    expect(await onTty(["sys", "info"])).toContain("\x1b[1m");
  });

  test("an object is rendered with its units", async () => {
    const out = await onTty(["sys", "info"], { NO_COLOR: "1" });
    expect(out).toMatch(/^\s+total\s+\d+\.\d (GiB|MiB)$/m);
  });
});
