/**
 * End to end: what only the compiled binary does on the command line. Every
 * command's output is tested in-process (test/cli/cli.test.ts); these few run
 * dist/rta itself: main.ts's --version fast path, a real pipe on stdin with
 * its limit, a real exit status, and a real terminal.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json";
import { tempDir, tree } from "../support/fixtures.ts";
import { noStack, RTA, rta } from "../support/rta.ts";

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
const TOKEN = `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: "alice", exp: 4102444800 })}.c2ln`;

describe("the built binary", () => {
  test("--version prints the package version", async () => {
    const r = await rta(["--version"]);
    expect(r).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: "" });
  });

  test("a refusal exits with its code's status and says its code and hint, with no stack trace", async () => {
    const r = await rta(["proc", "list", "--limit", "0"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "rta: error: --limit is 0, outside 1..1000 (core.input.range)\nrta: hint: give --limit a number from 1 to 1000\n",
    );
    const usage = await rta(["nope"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("(core.cli.usage)");
    expect(noStack(usage.stderr)).toBe(true);
  });

  test("the tool a person types by habit is answered with the capability that does its job", async () => {
    const ps = await rta(["ps"]);
    expect(ps.code).toBe(2);
    expect(ps.stderr).toContain("rta: hint: did you mean `rta proc list`?");
    expect(ps.stderr).not.toContain("`rta fs`"); // a letter away, and nothing like ps
    expect((await rta(["cat", "README.md"])).stderr).toContain("did you mean `rta fs read`?");
    expect((await rta(["explain", "df"])).stderr).toContain("did you mean `rta explain disk.usage`?");
  });

  test("a token piped in and a token as an argument print the same JSON", async () => {
    const piped = await rta(["jwt", "decode", "--json"], { stdin: `${TOKEN}\n` });
    const arg = await rta(["jwt", "decode", TOKEN, "--json"]);
    expect(piped.code).toBe(0);
    expect(arg.code).toBe(0);
    expect(piped.stdout).toBe(arg.stdout);
    expect(JSON.parse(arg.stdout).value.claims).toEqual({ sub: "alice", exp: 4102444800 });
  });

  // As before the handles: a search opens no file that can carry git's credentials, for a person too, while
  // `rta fs read .git/config` still reads it. The walk's git rule was made an agent's only in the redesign.
  test("a person's search passes git's credential files by, as an agent's does", async () => {
    const repo = tempDir();
    mkdirSync(join(repo, ".git/objects"), { recursive: true });
    mkdirSync(join(repo, ".git/refs"));
    writeFileSync(join(repo, ".git/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(repo, ".git/config"), "[remote] url = https://user:needle@example.test/x\n");
    writeFileSync(join(repo, ".git/credentials"), "https://user:needle@example.test\n");
    writeFileSync(join(repo, ".git-credentials"), "https://user:needle@example.test\n");
    writeFileSync(join(repo, "notes.txt"), "a needle in the work tree\n");
    const r = await rta(["fs", "grep", "needle", repo, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).rows).toEqual([
      { file: join(repo, "notes.txt"), line: 1, text: "a needle in the work tree" },
    ]);
    const read = await rta(["fs", "read", join(repo, ".git/config"), "--json"]);
    expect(JSON.parse(read.stdout).text).toContain("needle");
  });

  test("a token piped in larger than the pipe limit is refused while it is read", async () => {
    const r = await rta(["jwt", "decode"], { stdin: "x".repeat(2 * 1024 * 1024) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.input.toolarge)");
  });
});

describe("on a terminal", () => {
  // `script` gives the binary a pseudo-terminal, so it renders for a person.
  async function onTty(command: string, env: Record<string, string> = {}): Promise<string> {
    const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], {
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
      env: { PATH: process.env.PATH ?? "", TERM: "xterm", ...env },
    });
    const out = await new Response(proc.stdout).text();
    await proc.exited;
    return out.replaceAll("\r\n", "\n");
  }

  test("a table is a grid with a count of what was cut; NO_COLOR leaves no escape codes", async () => {
    const out = await onTty(`${RTA} proc list --limit 2`, { NO_COLOR: "1" });
    expect(out).toMatch(/^PID\s+USER\s+CPU\s+MEM\s+COMMAND$/m);
    expect(out).toMatch(/^rta: note: showing 2 of \d+; --limit shows more$/m);
    expect(out).not.toContain("\x1b[");
  });

  test("colour is used on a terminal unless NO_COLOR is set", async () => {
    expect(await onTty(`${RTA} sys info`)).toContain("\x1b[1m");
  });
});

describe("a person's search", () => {
  test("passes git's credential files by, as a walk always has; naming one still reads it", async () => {
    const root = tree({ ".git/config": "[core]\n\tpassword = hunter2\n", "src/a.txt": "hunter\n" });
    const grep = await rta(["fs", "grep", "hunter", root, "--json"]);
    expect(grep.code).toBe(0);
    expect(JSON.parse(grep.stdout).rows).toEqual([{ file: join(root, "src/a.txt"), line: 1, text: "hunter" }]);
    const inGit = await rta(["fs", "grep", "hunter", `${root}/.git`, "--json"]);
    expect(JSON.parse(inGit.stdout).rows).toEqual([]);
    const named = await rta(["fs", "grep", "hunter", `${root}/.git/config`, "--json"]);
    expect(JSON.parse(named.stdout).rows).toEqual([
      { file: `${root}/.git/config`, line: 2, text: "\tpassword = hunter2" },
    ]);
  });
});
