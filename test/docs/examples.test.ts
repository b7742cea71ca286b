/**
 * The doc test: every ```console block of docs/*.md and README.md runs against
 * the built binary, and the output it shows is checked (trycmd-style), so a
 * page cannot go stale silently.
 *
 * - A `$ ` line is a step, run by sh with dist/ first on PATH (so `rta` is the
 *   binary just built) and stderr joined to stdout, as a terminal shows them;
 *   the lines under it, up to the next `$ ` line, are what it must print. A line
 *   `...` stands for any number of lines, `[..]` for any text within a line.
 *   A step that shows `rta: error:` must fail; any other must exit 0.
 * - Each page runs in a scratch home of its own (HOME, RTA_DATA_DIR at
 *   ~/.local/share/rta, RTA_CONFIG_DIR at ~/.config/rta, the working directory
 *   ~/work), its steps in order; piped, in a session of its own (no terminal).
 * - `<!-- doctest: terminal -->` just above a block runs its steps on a
 *   pseudo-terminal instead (util-linux `script`), as a person sees them.
 * - `<!-- doctest: setup` ... `-->` holds shell lines the reader need not see
 *   (writing a fixture, installing the note plugin from `$RTA_DIST/plugins`),
 *   run at that point; each must exit 0.
 * - `<!-- doctest: file PATH -->` just above a fenced block (a ```toml
 *   policy, say) writes the block's text to PATH (`~/` is the scratch home) at
 *   that point, so the file the reader is shown is the file the steps run on.
 * - `<!-- doctest: background -->` just above a block of one `$` line (a
 *   server) starts it and leaves it running until the page ends; the lines it
 *   shows (no `...`) are read as they come, then checked.
 * - `<!-- doctest: port N -->` says port N on this page stands for a free port
 *   the test picks, in every step and every line shown, so a page can say
 *   8722 and two runs never meet.
 * - `<!-- doctest: skip REASON -->` just above a block leaves it untested, and
 *   says why; use it sparingly (a block needing a service the test cannot run).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { prepareDataDir, RTA } from "../support/rta.ts";

const ROOT = join(import.meta.dir, "..", "..");
const DIST = join(ROOT, "dist");

interface Step {
  /** "setup" lines are not on the page as examples; "run" lines are; "file" writes `expected` to `line`, a path */
  kind: "run" | "setup" | "file";
  line: string;
  /** where the line is on the page, 1-based, for the failure */
  at: number;
  expected: string[];
  terminal: boolean;
  /** started and left running until the page ends */
  background?: boolean;
}

/** The steps of a page, in order, and the blocks it leaves untested with why. */
export function stepsOf(page: string): { steps: Step[]; skipped: { at: number; why: string }[]; port?: string } {
  const lines = page.split("\n");
  const steps: Step[] = [];
  const skipped: { at: number; why: string }[] = [];
  let pending: { terminal?: boolean; skip?: string; file?: string; background?: boolean } = {};
  let port: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const directive = /^<!-- doctest: (\w+)(.*?)(-->)?\s*$/.exec(line);
    if (directive) {
      const [, word, rest = "", closed] = directive;
      if (word === "terminal") pending.terminal = true;
      else if (word === "file") pending.file = rest.trim();
      else if (word === "background") pending.background = true;
      else if (word === "port") port = rest.trim();
      else if (word === "skip") {
        if (rest.trim() === "") throw new Error(`line ${i + 1}: a doctest skip says why`);
        pending.skip = rest.trim();
      } else if (word === "setup") {
        if (closed) throw new Error(`line ${i + 1}: a doctest setup holds its lines below it, then -->`);
        for (i++; i < lines.length && (lines[i] as string).trim() !== "-->"; i++)
          if ((lines[i] as string).trim() !== "")
            steps.push({ kind: "setup", line: lines[i] as string, at: i + 1, expected: [], terminal: false });
      } else
        throw new Error(`line ${i + 1}: no doctest directive ${word} (terminal, file, setup, background, port, skip)`);
      continue;
    }
    if (pending.file !== undefined && line.startsWith("```")) {
      const body: string[] = [];
      for (i++; i < lines.length && (lines[i] as string).trim() !== "```"; i++) body.push(lines[i] as string);
      steps.push({ kind: "file", line: pending.file, at: i + 1, expected: body, terminal: false });
      pending = {};
      continue;
    }
    if (line.trim() !== "```console") continue;
    const start = i + 1;
    let current: Step | undefined;
    for (i++; i < lines.length && (lines[i] as string).trim() !== "```"; i++) {
      const l = lines[i] as string;
      if (pending.skip !== undefined) continue;
      if (l.startsWith("$ ")) {
        current = { kind: "run", line: l.slice(2), at: i + 1, expected: [], terminal: pending.terminal === true };
        if (pending.background) current.background = true;
        steps.push(current);
      } else if (current) current.expected.push(l);
      else throw new Error(`line ${i + 1}: a console block starts with a $ line`);
    }
    if (pending.skip !== undefined) skipped.push({ at: start, why: pending.skip });
    pending = {};
  }
  return { steps, skipped, ...(port !== undefined ? { port } : {}) };
}

/** Whether `actual` is what `expected` shows: `...` lines take any number of lines, `[..]` any text within one. */
export function matches(expected: string[], actual: string[]): boolean {
  const lineMatches = (want: string, got: string) => {
    if (!want.includes("[..]")) return want === got;
    const re = want.split("[..]").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    return new RegExp(`^${re.join(".*")}$`).test(got);
  };
  const memo = new Map<string, boolean>();
  const go = (e: number, a: number): boolean => {
    const key = `${e},${a}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let ok: boolean;
    if (e === expected.length) ok = a === actual.length;
    else if (expected[e] === "...") ok = go(e + 1, a) || (a < actual.length && go(e, a + 1));
    else ok = a < actual.length && lineMatches(expected[e] as string, actual[a] as string) && go(e + 1, a + 1);
    memo.set(key, ok);
    return ok;
  };
  return go(0, 0);
}

/** Runs one step in the page's scratch home; its exit status and output lines. */
async function run(step: Step, env: Record<string, string>, cwd: string): Promise<{ code: number; lines: string[] }> {
  const argv = step.terminal
    ? ["script", "-qec", step.line, "/dev/null"]
    : ["setsid", "-w", "sh", "-c", `exec 2>&1\n${step.line}`];
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env, cwd });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const text = (out + err).replaceAll("\r\n", "\n").replace(/\n$/, "");
  return { code, lines: text === "" ? [] : text.split("\n") };
}

/** Starts a background step; resolves with its first `count` lines once they have come, and the process to end later. */
async function started(
  step: Step,
  env: Record<string, string>,
  cwd: string,
  count: number,
): Promise<{ lines: string[]; proc: ReturnType<typeof Bun.spawn> }> {
  const proc = Bun.spawn(["setsid", "sh", "-c", `exec 2>&1\nexec ${step.line}`], {
    stdin: "ignore",
    stdout: "pipe",
    env,
    cwd,
  });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (text.split("\n").length - 1 < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return { lines: text.split("\n").slice(0, count), proc };
}

/** A port free on 127.0.0.1 now, for a page's `doctest: port`. */
async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const PAGES = [
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
  "README.md",
];

describe("the doc test's own rules", () => {
  test("a `...` line elides any lines, `[..]` any text within a line, and nothing else is loose", () => {
    expect(matches(["a", "...", "d"], ["a", "b", "c", "d"])).toBe(true);
    expect(matches(["a", "...", "d"], ["a", "d"])).toBe(true);
    expect(matches(["granted g[..]: fs.write"], ["granted g1a2b3c4d: fs.write"])).toBe(true);
    expect(matches(["a", "d"], ["a", "b", "d"])).toBe(false);
    expect(matches(["granted g[..]: fs.write"], ["granted g1: fs.read"])).toBe(false);
    expect(matches([], ["said something"])).toBe(false);
  });

  test("a page's blocks read as steps, directives included; a skip must say why", () => {
    const page = [
      "<!-- doctest: setup",
      "touch x",
      "-->",
      "<!-- doctest: terminal -->",
      "```console",
      "$ rta --version",
      "rta [..]",
      "```",
      "<!-- doctest: file ~/.config/rta/policy.toml -->",
      "```toml",
      'never = ["fs.rm"]',
      "```",
      "<!-- doctest: skip needs a server -->",
      "```console",
      "$ rta mcp serve --http",
      "```",
    ].join("\n");
    const { steps, skipped } = stepsOf(page);
    expect(steps.map((s) => [s.kind, s.line, s.expected, s.terminal])).toEqual([
      ["setup", "touch x", [], false],
      ["run", "rta --version", ["rta [..]"], true],
      ["file", "~/.config/rta/policy.toml", ['never = ["fs.rm"]'], false],
    ]);
    expect(skipped).toEqual([{ at: 14, why: "needs a server" }]);
    expect(() => stepsOf("<!-- doctest: skip -->\n```console\n$ rta\n```")).toThrow("says why");
    const served = stepsOf(
      "<!-- doctest: port 8722 -->\n<!-- doctest: background -->\n```console\n$ rta mcp serve\n```",
    );
    expect(served.port).toBe("8722");
    expect(served.steps[0]?.background).toBe(true);
  });
});

describe("every page's examples run as shown (trycmd-style)", () => {
  for (const page of PAGES) {
    const { steps: shownSteps, port } = stepsOf(readFileSync(join(ROOT, page), "utf8"));
    if (shownSteps.length === 0) continue;
    test(page, async () => {
      const picked = port === undefined ? undefined : String(await freePort());
      const swap = (text: string) => (port === undefined ? text : text.replaceAll(port, picked as string));
      const steps = shownSteps.map((s) => ({ ...s, line: swap(s.line), expected: s.expected.map(swap) }));
      const running: ReturnType<typeof Bun.spawn>[] = [];
      if (!existsSync(RTA)) throw new Error("dist/rta is missing: run `npm run build` first");
      const home = tempDir("rta-doc-");
      const cwd = join(home, "work");
      mkdirSync(cwd);
      const env = {
        PATH: `${DIST}:${process.env.PATH ?? ""}`,
        HOME: home,
        RTA_DATA_DIR: join(home, ".local", "share", "rta"),
        RTA_CONFIG_DIR: join(home, ".config", "rta"),
        RTA_DIST: DIST,
        NO_COLOR: "1",
        TERM: "dumb",
        LANG: "C.UTF-8",
      };
      await prepareDataDir(env.RTA_DATA_DIR);
      try {
        for (const step of steps) await check(step, home, cwd, env, page, running);
      } finally {
        for (const proc of running) {
          proc.kill();
          await proc.exited;
        }
      }
    });
  }
});

/** Runs one step of a page and checks it; a background step is left in `running`. */
async function check(
  step: Step,
  home: string,
  cwd: string,
  env: Record<string, string>,
  page: string,
  running: ReturnType<typeof Bun.spawn>[],
): Promise<void> {
  const where = `${page}:${step.at}: $ ${step.line}`;
  if (step.kind === "file") {
    const path = step.line.startsWith("~/") ? join(home, step.line.slice(2)) : join(cwd, step.line);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${step.expected.join("\n")}\n`);
    return;
  }
  if (step.background) {
    if (step.expected.includes("...")) throw new Error(`${where}: a background step shows no ...`);
    const { lines, proc } = await started(step, env, cwd, step.expected.length);
    running.push(proc);
    if (!matches(step.expected, lines)) expect({ where, output: lines }).toEqual({ where, output: step.expected });
    return;
  }
  const { code, lines } = await run(step, env, cwd);
  if (step.kind === "setup") {
    expect({ where, code, output: lines }).toEqual({ where, code: 0, output: expect.anything() });
    return;
  }
  const fails = step.expected.some((l) => l.startsWith("rta: error:"));
  expect({ where, exit: code === 0 ? "ok" : "failed" }).toEqual({ where, exit: fails ? "failed" : "ok" });
  if (!matches(step.expected, lines)) expect({ where, output: lines }).toEqual({ where, output: step.expected });
}

/** The pages seed 003 lists for an operator, and the one on agents with a shell. */
const OPERATOR_PAGES = [
  "connect-an-agent.md",
  "grants.md",
  "secrets.md",
  "team-policy.md",
  "stop-an-agent.md",
  "hosting.md",
  "operator-channel.md",
  "containers.md",
  "path-gate.md",
  "agents-with-a-shell.md",
];

describe("the operator's pages", () => {
  test("the README links each page, and every page a page or the README links is there", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    for (const page of OPERATOR_PAGES) expect(readme).toContain(`](docs/${page})`);
    const missing: string[] = [];
    for (const page of PAGES) {
      const text = readFileSync(join(ROOT, page), "utf8");
      for (const [, target] of text.matchAll(/\]\(([\w./-]+\.md)(?:#[\w-]+)?\)/g)) {
        const path = join(ROOT, dirname(page), target as string);
        if (!existsSync(path)) missing.push(`${page} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every page that shows rta at work shows it in a tested console block", () => {
    for (const page of OPERATOR_PAGES.filter((p) => p !== "operator-channel.md" && p !== "path-gate.md")) {
      const { steps } = stepsOf(readFileSync(join(ROOT, "docs", page), "utf8"));
      expect({ page, tested: steps.some((s) => s.kind === "run") }).toEqual({ page, tested: true });
    }
  });
});
