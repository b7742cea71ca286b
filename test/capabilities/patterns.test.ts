/**
 * fs.grep, fs.find and log.tail on the inputs that break naive line handling:
 * lines far past a chunk, characters split across chunks, blocks screened
 * whole, files that start or end oddly, and a cancelled call.
 */
import { beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin } from "../../src/core/call.ts";
import type { Deps } from "../../src/gate/deps.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { tempDir, testDeps } from "../support/fixtures.ts";

const catalogue = builtinCatalogue();
const origin: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
let root = "";
let deps: Deps;

beforeEach(() => {
  root = realpathSync(tempDir());
  const base = testDeps();
  deps = { ...base, roots: new PathGate([root], agentRules(base.dirs)) };
});

/** As an agent; `person` for an answer past what a model is sent (paths are then absolute). */
async function call(tool: string, args: Record<string, unknown>, signal?: AbortSignal, person = false) {
  const out = await runCall(
    person
      ? {
          capability: tool.replace("_", "."),
          args: { ...args, path: resolve(root, String(args.path)) },
          origin: { kind: "person" },
        }
      : { capability: tool, args, origin },
    catalogue,
    deps,
    signal ? { signal } : {},
  );
  if (!out.ok) return { code: out.error.code, message: out.error.message } as Record<string, unknown>;
  return out.value as unknown as Record<string, unknown>;
}

const rowsOf = (r: Record<string, unknown>) => r.rows as unknown[][];

describe("fs_grep", () => {
  test("finds the same lines as a line-by-line RegExp, whether blocks are screened or not", async () => {
    let seed = 9;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const words = ["alpha", "beta", "ERROR", "gamma", "  return null;", "x", ""];
    const lines = Array.from({ length: 20_000 }, () =>
      Array.from({ length: next(8) }, () => words[next(words.length)]).join(" "),
    );
    writeFileSync(join(root, "log.txt"), `${lines.join("\n")}\n`);
    // the same pattern with and without a screen (\z turns it off); patterns both engines read alike
    for (const [pattern, plain] of [
      ["ERROR beta$", /ERROR beta$/],
      ["^\\s*return null;", /^\s*return null;/],
      ["^$", /^$/],
      ["\\bx\\b.*gamma", /\bx\b.*gamma/],
      ["ERROR", /ERROR/],
      ["beta|return", /beta|return/],
      ["x", /x/],
    ] as const) {
      const want = lines.flatMap((l, i) => (plain.test(l) ? [i + 1] : []));
      for (const p of [pattern, `(?:${pattern})(?:|\\z)`]) {
        const r = await call("fs_grep", { pattern: p, path: "log.txt", max_matches: 10_000 }, undefined, true);
        expect([p, rowsOf(r).map((row) => row[1])]).toEqual([p, want.slice(0, 10_000)]);
      }
    }
  });

  test("an empty first line, and words found anywhere in a block, are each tested", async () => {
    writeFileSync(join(root, "e.txt"), "\nfirst\n\nthird word\nword\n");
    expect(rowsOf(await call("fs_grep", { pattern: "^$", path: "e.txt" })).map((r) => r[1])).toEqual([1, 3]);
    expect(rowsOf(await call("fs_grep", { pattern: "word", path: "e.txt" })).map((r) => r[1])).toEqual([4, 5]);
    expect(
      rowsOf(await call("fs_grep", { pattern: "WORD|FIRST", path: "e.txt", ignore_case: true })).map((r) => r[1]),
    ).toEqual([2, 4, 5]);
  });

  test("two files alike both come back whole: what was found in one is not taken for the other", async () => {
    mkdirSync(join(root, "same"));
    const text = `${"x\n".repeat(50)}word one\n${"y\n".repeat(50)}word two\n`;
    writeFileSync(join(root, "same", "a.txt"), text);
    writeFileSync(join(root, "same", "b.txt"), text);
    const r = await call("fs_grep", { pattern: "word", path: "same" });
    expect(rowsOf(r).map((row) => `${row[0]}:${row[1]}`)).toEqual([
      "same/a.txt:51",
      "same/a.txt:102",
      "same/b.txt:51",
      "same/b.txt:102",
    ]);
  });

  test("a line far longer than a chunk is held to its start, matched there and shown cut", async () => {
    writeFileSync(
      join(root, "one.txt"),
      `first\nneedle ${"y".repeat(300_000)}\n${"z".repeat(5000)}needle\nlast needle`,
    );
    const r = await call("fs_grep", { pattern: "needle", path: "one.txt" });
    expect(rowsOf(r).map((row) => row[1])).toEqual([2, 4]);
    expect(rowsOf(r)[0]?.[2]).toBe(`needle ${"y".repeat(4096 - 7)}...`);
    expect(rowsOf(r)[1]?.[2]).toBe("last needle");
  });

  test("a character split across two chunks is read whole", async () => {
    const head = "a".repeat(64 * 1024 - 1);
    writeFileSync(join(root, "wide.txt"), `${head}\nünïcödé here\n`);
    // é's two bytes lie either side of the first chunk's end, in a short line
    writeFileSync(join(root, "split.txt"), `${"b".repeat(64 * 1024 - 12)}\n1234567890é end\n`);
    expect(rowsOf(await call("fs_grep", { pattern: "ünïcödé", path: "wide.txt" })).map((r) => r[1])).toEqual([2]);
    const split = await call("fs_grep", { pattern: "0é end$", path: "split.txt" });
    expect(rowsOf(split)).toEqual([["split.txt", 2, "1234567890é end"]]);
  });

  test("the glob is RE2's too: braces, sets and a bad range", async () => {
    mkdirSync(join(root, "src"));
    for (const name of ["a.ts", "b.js", "c.md", "d.tsx"]) writeFileSync(join(root, "src", name), "TODO\n");
    const r = await call("fs_grep", { pattern: "TODO", path: "src", glob: "*.{ts,js}" });
    expect(rowsOf(r).map((row) => row[0])).toEqual(["src/a.ts", "src/b.js"]);
    expect(await call("fs_grep", { pattern: "TODO", path: "src", glob: "[z-a]*" })).toMatchObject({
      code: "core.input.invalid",
    });
  });

  test("a FIFO or a device is fs.notfile, not an internal failure", async () => {
    Bun.spawnSync(["mkfifo", join(root, "pipe")]);
    expect(await call("fs_grep", { pattern: "x", path: "pipe" })).toMatchObject({ code: "fs.notfile" });
    expect(await call("fs_grep", { pattern: "x", path: "/dev/null" }, undefined, true)).toMatchObject({
      code: "fs.notfile",
    });
  });

  test("a cancelled search stops with core.call.cancelled", async () => {
    for (let i = 0; i < 20; i++) writeFileSync(join(root, `f${i}.txt`), "line\n".repeat(10_000));
    const stop = new AbortController();
    stop.abort();
    expect(await call("fs_grep", { pattern: "nothing", path: "." }, stop.signal)).toMatchObject({
      code: "core.call.cancelled",
      message: 'searching "." was cancelled',
    });
  });
});

describe("fs_find", () => {
  test("a brace, a negation and a set; a glob RE2 cannot take is core.input.invalid", async () => {
    for (const name of ["a.ts", "b.js", "c.md"]) writeFileSync(join(root, name), "");
    const names = async (glob: string) =>
      rowsOf(await call("fs_find", { path: ".", name: glob, type: "file" })).map((r) => r[0]);
    expect(await names("*.{ts,md}")).toEqual(["a.ts", "c.md"]);
    expect(await names("!*.ts")).toEqual(["b.js", "c.md"]);
    expect(await names("[ab].*")).toEqual(["a.ts", "b.js"]);
    expect(await call("fs_find", { path: ".", name: "*a".repeat(1000) })).toMatchObject({ code: "core.input.invalid" });
  });
});

describe("log_tail", () => {
  test("an empty first line, no newline at the end, and a filter that is plain text", async () => {
    writeFileSync(join(root, "a.log"), "\nGET /a.b?x=1\nGET /aXb?x=1\nlast");
    expect(rowsOf(await call("log_tail", { path: "a.log", lines: 10 }))).toEqual([
      [-4, ""],
      [-3, "GET /a.b?x=1"],
      [-2, "GET /aXb?x=1"],
      [-1, "last"],
    ]);
    expect(rowsOf(await call("log_tail", { path: "a.log", filter: "/a.b?" }))).toEqual([[-3, "GET /a.b?x=1"]]);
    expect(await call("log_tail", { path: "a.log", filter: "x".repeat(5000) })).toMatchObject({
      code: "core.input.invalid",
    });
  });

  test("a line longer than many chunks comes back whole, and characters split across chunks are read whole", async () => {
    const long = `start ${"é".repeat(200_000)} end`;
    writeFileSync(join(root, "b.log"), `one\n${long}\ntwo\n`);
    expect(rowsOf(await call("log_tail", { path: "b.log", lines: 3 }, undefined, true))).toEqual([
      [-3, "one"],
      [-2, long],
      [-1, "two"],
    ]);
    expect(rowsOf(await call("log_tail", { path: "b.log", filter: "start" }, undefined, true))).toEqual([[-2, long]]);
  });

  test("agrees with splitting the whole file, over chunk edges, long lines and wide characters (fixed seed)", async () => {
    let seed = 5;
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ["a", "é", "€", "😀", " ", "x", "ERR"];
    for (let f = 0; f < 12; f++) {
      const lines = Array.from({ length: 50 + next(400) }, () => {
        const long = next(40) === 0 ? 70_000 + next(70_000) : next(3) === 0 ? 0 : next(300);
        return Array.from({ length: long }, () => pieces[next(pieces.length)]).join("");
      });
      const text = lines.join("\n") + (next(2) === 0 ? "\n" : "");
      writeFileSync(join(root, "r.log"), text);
      const all = text.split("\n");
      if (text.endsWith("\n")) all.pop();
      const numbered = all.map((line, i) => [i - all.length, line] as [number, string]);
      const want = 1 + next(600);
      const filter = next(2) === 0 ? "ERR" : undefined;
      const expected = (filter ? numbered.filter(([, l]) => l.slice(0, 4096).includes(filter)) : numbered).slice(-want);
      const got = rowsOf(await call("log_tail", { path: "r.log", lines: want, filter }, undefined, true));
      expect(got.length).toBe(expected.length);
      expect(got).toEqual(expected);
    }
  }, 60_000); // twelve files with lines of up to 140,000 characters: seconds on a loaded machine

  test("a cancelled read stops with core.call.cancelled", async () => {
    writeFileSync(join(root, "c.log"), "line\n".repeat(100_000));
    const stop = new AbortController();
    stop.abort();
    expect(await call("log_tail", { path: "c.log", filter: "nothing" }, stop.signal)).toMatchObject({
      code: "core.call.cancelled",
    });
  });
});

test("an agent's fs_grep refuses a backreference before reading a file", async () => {
  writeFileSync(join(root, "x.txt"), "aa\n");
  const out = await runCall({ capability: "fs_grep", args: { pattern: "(a)\\1", path: "." }, origin }, catalogue, deps);
  expect(out.ok ? "ran" : out.error.code).toBe("core.input.invalid");
});
