import { describe, expect, test } from "bun:test";
import { cliWords } from "../../src/cli/cliWords.ts";
import { type Io, jsonText, takeColor } from "../../src/cli/io.ts";
import { renderPlain } from "../../src/cli/plain.ts";
import { printResult, resultJson } from "../../src/cli/printResult.ts";
import { RtaError } from "../../src/core/errors.ts";
import { forAgent, object, table, text } from "../../src/core/result.ts";
import { noteCatalogue } from "../support/plugins.ts";
import { runCli } from "../support/runCli.ts";

const catalogue = await noteCatalogue();

function buffers(tty: boolean): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: "",
    stderr: "",
    out: (t: string) => {
      io.stdout += t;
    },
    err: (t: string) => {
      io.stderr += t;
    },
    stdoutIsTTY: tty,
    stdinIsTTY: tty,
    readStdin: async () => "",
    readLine: () => "",
    env: {},
  };
  return io;
}

describe("plain form", () => {
  test("a table is tab-separated rows with no header; a cell's tab, newline and escape cannot forge a row or act", () => {
    const t = table(
      ["name", "size", "owner"],
      [
        ["a\tb", 2048, null],
        ["new\nline\x1b[2J", 1.5, "root"],
      ],
      3,
    );
    expect(renderPlain(t)).toBe("a\\tb\t2048\t\nnew\\nline\\x1b[2J\t1.5\troot\n");
  });

  test("a text is its own bytes: CRLF, tabs and controls kept, no newline added", () => {
    expect(renderPlain(text("a\r\nb\tc\x1b[31m"))).toBe("a\r\nb\tc\x1b[31m");
  });

  test("an object is key<TAB>value lines: nested keys dotted, arrays one value a line, empty as empty", () => {
    const o = object({
      host: "vm",
      memory: { total: 1024, free: 0 },
      load: [1, 2],
      tags: [],
      ports: [{ n: 22 }],
      x: null,
    });
    expect(renderPlain(o)).toBe(
      "host\tvm\nmemory.total\t1024\nmemory.free\t0\nload\t1\nload\t2\ntags\t\nports.0.n\t22\nx\t\n",
    );
    expect(renderPlain(object({ "a\tkey": "v\nw" }))).toBe("a\\tkey\tv\\nw\n");
  });

  test("a tree is one path a line; a chart is series, x and y", () => {
    const tree = {
      type: "tree" as const,
      root: {
        name: "src",
        children: [
          { name: "cli/", children: [{ name: "io.ts" }] },
          { name: "n", value: 3 },
        ],
      },
    };
    expect(renderPlain(tree)).toBe("src\nsrc/cli/\nsrc/cli/io.ts\nsrc/n\t3\n");
    const chart = {
      type: "chart" as const,
      unit: "ms",
      series: [
        {
          name: "rtt",
          points: [
            ["a", 1.25],
            [2, 3],
          ] as [string | number, number][],
        },
      ],
    };
    expect(renderPlain(chart)).toBe("rtt\ta\t1.25\nrtt\t2\t3\n");
  });
});

describe("--json", () => {
  test("a table's rows are objects keyed by column, with its total", () => {
    expect(resultJson(table(["pid", "cmd"], [[1, "init"]], 67))).toEqual({
      type: "table",
      columns: ["pid", "cmd"],
      rows: [{ pid: 1, cmd: "init" }],
      total: 67,
    });
  });

  test("pretty on a terminal, one line piped; a control JSON leaves raw is escaped", () => {
    expect(jsonText(buffers(false), { a: "x\u202ey" })).toBe('{"a":"x\\u202ey"}\n');
    expect(jsonText(buffers(true), { a: 1 })).toBe('{\n  "a": 1\n}\n');
  });
});

describe("printResult", () => {
  const cap = catalogue.byName("fs.read");

  test("notes go to stderr in CLI spelling, never into stdout", () => {
    const io = buffers(false);
    const status = printResult(io, text("one", "[more lines follow: read on with from_line=2]"), false, {
      cap,
      catalogue,
    });
    expect({ status, out: io.stdout, err: io.stderr }).toEqual({
      status: 0,
      out: "one",
      err: "rta: note: more lines follow: read on with --from-line 2\n",
    });
    const listed = buffers(true);
    listed.env = { NO_COLOR: "1" };
    printResult(listed, table(["pid"], [[1]], 67), false);
    expect(listed.stdout).toBe("PID\n1\n");
    expect(listed.stderr).toBe("rta: note: showing 1 of 67\n");
  });

  test("a text cut at a bound not chosen exits 5; one that is not UTF-8 exits 1", () => {
    expect(printResult(buffers(false), text("x", "[3 more bytes: read on with offset=1]", "cut"), false)).toBe(5);
    const io = buffers(false);
    expect(printResult(io, text("caf\ufffd", undefined, "replaced"), false)).toBe(1);
    expect(io.stderr).toContain("not UTF-8");
  });

  test("an agent is sent the note as the text's last line, and nothing of short", () => {
    expect(forAgent(text("one", "[more lines follow: read on with from_line=2]", "cut"))).toEqual({
      type: "text",
      text: "one\n[more lines follow: read on with from_line=2]",
    });
    expect(forAgent(text("", "[the file has 3 lines]"))).toEqual({ type: "text", text: "[the file has 3 lines]" });
  });
});

describe("CLI spelling", () => {
  const cap = catalogue.byName("fs.read");

  test("an argument as a flag, a tool as a command; quoted text and a positional input left alone", () => {
    expect(cliWords("[cut at 9 bytes: read on with from_line=3]", cap, catalogue)).toBe(
      "cut at 9 bytes: read on with --from-line 3",
    );
    expect(cliWords("call fs_list first, then offset=10", cap, catalogue)).toBe(
      "call rta fs list first, then --offset 10",
    );
    expect(cliWords('"a fs_list from_line=3" path=x', cap, catalogue)).toBe('"a fs_list from_line=3" path=x');
    expect(cliWords('argument "from_line" must be an integer', cap, catalogue)).toBe("--from-line must be an integer");
  });

  test("a capability's name in a hint is the command a person types; a code, a host or a quoted name is left alone", () => {
    expect(cliWords("fs.stat and fs.hash describe it without reading it as text", cap, catalogue)).toBe(
      "rta fs stat and rta fs hash describe it without reading it as text",
    );
    expect(cliWords("note.list shows the notes there are.", cap, catalogue)).toBe(
      "rta note list shows the notes there are.",
    );
    expect(cliWords("fs.notfound at sys.info.example.com, not fs.list/x", cap, catalogue)).toBe(
      "fs.notfound at sys.info.example.com, not fs.list/x",
    );
    expect(cliWords('"fs.list" and `proc.list`', cap, catalogue)).toBe('"fs.list" and `proc.list`');
  });

  test("an input a refusal begins with, or says to give, is its flag; a positional one is left as it is", () => {
    const proc = catalogue.byName("proc.list");
    expect(cliWords("limit is 0, outside 1..1000", proc, catalogue)).toBe("--limit is 0, outside 1..1000");
    expect(cliWords("give limit a number from 1 to 1000", proc, catalogue)).toBe(
      "give --limit a number from 1 to 1000",
    );
    expect(cliWords('sort cannot be "x"', proc, catalogue)).toBe('--sort cannot be "x"');
    expect(cliWords("give from_line: the first line", cap, catalogue)).toBe("give --from-line: the first line");
    expect(cliWords("path is required", cap, catalogue)).toBe("path is required");
    expect(cliWords("give path: the file", cap, catalogue)).toBe("give path: the file");
  });

  test("a refusal of a capability's command is said in CLI spelling", async () => {
    const r = await runCli(["proc", "list", "--limit", "many"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "rta: error: rta proc list: --limit must be an integer (core.input.invalid)\n" +
        "rta: hint: rta proc list takes: --sort (string: cpu|mem|pid), --limit (integer 1..1000)\n",
    );
  });
});

test("--json before the command is the command's --json", async () => {
  const r = await runCli(["--json", "proc", "list", "--limit", "1", "--sort", "pid"]);
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout).rows[0].pid).toBe(1);
});

describe("--color", () => {
  test("is taken anywhere before --, the last one winning; anything but auto, always or never is a usage error", () => {
    expect(takeColor(["proc", "--color", "never", "list", "--color=always"])).toEqual({
      argv: ["proc", "list"],
      color: "always",
    });
    expect(takeColor(["note", "add", "--", "--color", "x"])).toEqual({ argv: ["note", "add", "--", "--color", "x"] });
    expect(() => takeColor(["--color"])).toThrow(RtaError);
    expect(() => takeColor(["--color=blue"])).toThrow("--color takes auto, always or never");
  });

  test("--color always colours a terminal under NO_COLOR; never takes it away", async () => {
    const env = { TERM: "xterm" };
    const never = await runCli(["sys", "info", "--color", "never"], { tty: true, env });
    expect(never.stdout).not.toContain("\x1b[");
    const always = await runCli(["--color", "always", "sys", "info"], { tty: true, env: { ...env, NO_COLOR: "1" } });
    expect(always.stdout).toContain("\x1b[1m");
  });
});
