/**
 * End to end: fs.find and fs.grep under a directory the server may not read.
 * They pass it by, count what they skipped and say so at the end (as find
 * does): a person gets a warning on stderr and exit status 1, an agent a
 * warning in the result; what the gate withholds is never counted. fs.grep
 * with no match exits 1, as grep and rg do. Root ignores file modes, so rta
 * runs as nobody (setpriv) for a mode to bite.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  closeSync,
  constants,
  mkdirSync,
  openSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import { resultJson } from "../support/mcpClient.ts";
import { AS_NOBODY, NOBODY, nobodyBase } from "../support/nobody.ts";
import { type Ran, RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

let base: string;
let work: string;
let bin: string;
let env: Record<string, string>;

beforeAll(() => {
  ({ base, bin } = nobodyBase());
  work = join(base, "work");
  mkdirSync(join(work, "open"), { recursive: true });
  mkdirSync(join(work, "locked"));
  writeFileSync(join(work, "a.txt"), "a needle\n");
  writeFileSync(join(work, "open", "c.txt"), "another needle\n");
  writeFileSync(join(work, "locked", "b.txt"), "a hidden needle\n");
  writeFileSync(join(work, "shut.txt"), "a shut needle\n");
  // rta's own identity file, under the root and unreadable too: withheld, so never counted
  writeFileSync(join(work, "identity.key"), "needle\n");
  chmodSync(join(work, "locked"), 0o000);
  chmodSync(join(work, "shut.txt"), 0o000);
  chmodSync(join(work, "identity.key"), 0o000);
  const data = join(base, "data");
  mkdirSync(data);
  chownSync(data, NOBODY, NOBODY);
  env = {
    PATH: process.env.PATH ?? "",
    HOME: data,
    RTA_DATA_DIR: data,
    RTA_CONFIG_DIR: join(data, "config"),
    RTA_KV_IDENTITY: join(work, "identity.key"),
  };
});

afterAll(() => {
  for (const p of ["locked", "shut.txt", "identity.key"]) chmodSync(join(work, p), 0o755);
});

async function asNobody(args: string[]): Promise<Ran> {
  const proc = Bun.spawn([...AS_NOBODY, bin, ...args], { env, stdout: "pipe", stderr: "pipe", cwd: base });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

describe("a person's search under what the server may not read", () => {
  test("fs grep skips and counts the directory and the file, prints what it found and exits 1 with a warning", async () => {
    const r = await asNobody(["fs", "grep", "needle", "work", "--json"]);
    expect(JSON.parse(r.stdout).rows).toEqual([
      { file: "work/a.txt", line: 1, text: "a needle" },
      { file: "work/open/c.txt", line: 1, text: "another needle" },
    ]);
    // a person's gate withholds nothing: rta's unreadable identity file is counted with the rest
    expect(r.stderr).toBe(
      'rta: warning: 3 entries under "work" could not be read (permission denied) and were skipped\n',
    );
    expect(r.code).toBe(1);
  });

  test("fs find lists the directory it cannot enter, counts it, and exits 1; --json carries the warning", async () => {
    const r = await asNobody(["fs", "find", "./work", "--type", "dir", "--json"]);
    const out = JSON.parse(r.stdout);
    expect(out.rows.map((row: { path: string }) => row.path)).toEqual(["./work/locked", "./work/open"]);
    expect(out.warnings).toEqual([
      {
        code: "fs.walk.skipped",
        message: '1 entry under "./work" could not be read (permission denied) and was skipped',
      },
    ]);
    expect(r.stderr).toContain("could not be read");
    expect(r.code).toBe(1);
  });

  test("fs tree shows the directory it cannot list without children, and says so with exit 1, as find does", async () => {
    const r = await asNobody(["fs", "tree", "work"]);
    expect(r.stdout.split("\n")).toContain("work/locked/");
    expect(r.stdout).not.toContain("b.txt");
    // an unlisted directory drawn with nothing under it would read as empty: the warning says it is not known to be
    expect(r.stderr).toBe('rta: warning: 1 entry under "work" could not be read (permission denied) and was skipped\n');
    expect(r.code).toBe(1);
    const json = JSON.parse((await asNobody(["fs", "tree", "work", "--json"])).stdout);
    expect(json.warnings).toEqual([
      {
        code: "fs.walk.skipped",
        message: '1 entry under "work" could not be read (permission denied) and was skipped',
      },
    ]);
    const open = await asNobody(["fs", "tree", join(work, "open")]);
    expect([open.code, open.stderr]).toEqual([0, ""]);
  });

  test("what it may read in full is found with exit 0 and nothing on stderr", async () => {
    const r = await asNobody(["fs", "grep", "needle", join(work, "open"), "--json"]);
    expect(JSON.parse(r.stdout).rows).toEqual([{ file: join(work, "open", "c.txt"), line: 1, text: "another needle" }]);
    expect(JSON.parse(r.stdout).warnings).toBeUndefined();
    expect([r.code, r.stderr]).toEqual([0, ""]);
  });
});

describe("fs grep's exit status, as grep and rg", () => {
  test("0 with a match, 1 with none and nothing printed, and a refusal keeps its own code", async () => {
    const root = realpathSync(tempDir());
    writeFileSync(join(root, "f.txt"), "hay\n");
    expect((await rta(["fs", "grep", "hay", root])).code).toBe(0);
    const none = await rta(["fs", "grep", "needle", root, "--json"]);
    expect(none).toEqual({ code: 1, stdout: expect.any(String), stderr: "" });
    expect(JSON.parse(none.stdout)).toMatchObject({ rows: [], total: 0 });
    const missing = await rta(["fs", "grep", "needle", join(root, "gone")]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("(fs.notfound)");
    expect((await rta(["fs", "grep", "(unclosed", root])).code).toBe(2);
  });
});

describe("an agent's search under what the server may not read", () => {
  test("the result carries the count as a warning, and rta's own unreadable file and dir are not in it", async () => {
    // rta's config dir under the root, which the server may not list either: withheld, so not counted. It may pass
    // through it (0311), so it can tell there is no policy.toml: a team policy it cannot read refuses every agent call
    const ownConfig = join(work, "rta-config");
    mkdirSync(ownConfig);
    chmodSync(ownConfig, 0o311);
    const transport = new StdioClientTransport({
      command: AS_NOBODY[0] as string,
      args: [...AS_NOBODY.slice(1), bin, "mcp", "serve", "--root", work],
      env: { ...env, RTA_CONFIG_DIR: ownConfig },
      stderr: "pipe",
    });
    const client = new Client({ name: "rta-e2e", version: "1.0.0" });
    await client.connect(transport);
    try {
      const grep = resultJson(await client.callTool({ name: "fs_grep", arguments: { pattern: "needle" } }));
      expect(grep.rows).toEqual([
        ["a.txt", 1, "a needle"],
        ["open/c.txt", 1, "another needle"],
      ]);
      expect(grep.warnings).toEqual([
        { code: "fs.walk.skipped", message: "2 entries could not be read (permission denied) and were skipped" },
      ]);
      const found = resultJson(await client.callTool({ name: "fs_find", arguments: { path: "open" } }));
      expect(found.rows).toEqual([["open/c.txt", "file", 15, expect.any(String)]]);
      expect(found.warnings).toBeUndefined();
      const dirs = resultJson(await client.callTool({ name: "fs_find", arguments: { type: "dir" } }));
      expect((dirs.rows as unknown[][]).map((r) => r[0])).toEqual(["locked", "open"]);
      expect(dirs.warnings).toEqual([
        { code: "fs.walk.skipped", message: "1 entry could not be read (permission denied) and was skipped" },
      ]);
      const tree = resultJson(await client.callTool({ name: "fs_tree", arguments: {} }));
      const names = (tree.root as { children: { name: string }[] }).children.map((c) => c.name);
      expect(names).toContain("locked/");
      expect(names).not.toContain("rta-config/"); // withheld: neither drawn nor counted
      expect(tree.warnings).toEqual([
        { code: "fs.walk.skipped", message: "1 entry could not be read (permission denied) and was skipped" },
      ]);
    } finally {
      await client.close();
      rmSync(ownConfig, { recursive: true, force: true });
    }
  });
});

describe("a reader that leaves early", () => {
  test("fs find | head: rta ends quietly with 0, with no internal failure said", async () => {
    const root = realpathSync(tempDir());
    for (let i = 0; i < 3000; i++) writeFileSync(join(root, `file-${String(i).padStart(5, "0")}.txt`), "");
    const sh = Bun.spawn(
      [
        "bash",
        "-c",
        `"$0" fs find "$1" --json | head -c 10 >/dev/null; echo "rta: $${"{"}PIPESTATUS[0]}" >&2`,
        RTA,
        root,
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "", HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
      },
    );
    expect(await new Response(sh.stderr).text()).toBe("rta: 0\n");
  });
});

describe("on a terminal", () => {
  test("fs grep with no match exits 1 and a quick walk shows no progress; doctor names its root's source", async () => {
    const root = realpathSync(tempDir());
    writeFileSync(join(root, "f.txt"), "hay\n");
    const env = { HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
    const none = await onTerminal(["fs", "grep", "needle", root], env);
    expect(none.code).toBe(1);
    expect(none.out).not.toContain("seen");
    expect(none.out).not.toContain("\r");
    const found = await onTerminal(["fs", "grep", "hay", root], env);
    expect(found.code).toBe(0);
    expect(found.out).toContain(`${root}/f.txt`);
    const doctor = await onTerminal(["doctor", "--root", root], env);
    expect(doctor.out).toContain(`ok    root: ${root} (from --root)\n`);
  });
});

/** Whether `dir` opens but refuses to be listed, as /proc/1/map_files does to a root without CAP_SYS_ADMIN. */
function opensButRefusesListing(dir: string): boolean {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return false;
  }
  try {
    readdirSync(`/proc/self/fd/${fd}`);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EACCES";
  } finally {
    closeSync(fd);
  }
}

describe("a directory that opens but refuses to be listed", () => {
  test("is skipped and counted as one that does not open, not the end of the whole search", async () => {
    const dir = "/proc/1/map_files";
    if (!opensButRefusesListing(dir)) {
      console.log(`skipped: ${dir} is listed in full here`);
      return;
    }
    const r = await rta(["fs", "find", "/proc/1", "--depth", "1", "--type", "dir", "--json"]);
    expect(r.stderr).not.toContain("fs.denied");
    const out = JSON.parse(r.stdout);
    expect(out.rows.map((row: { path: string }) => row.path)).toContain("/proc/1/map_files");
    const deeper = await rta(["fs", "find", "/proc/1", "--depth", "2", "--json"]);
    expect(deeper.stderr).not.toContain("fs.denied");
    const found = JSON.parse(deeper.stdout);
    expect(found.rows.map((row: { path: string }) => row.path)).toContain("/proc/1/map_files");
    expect(found.warnings[0].code).toBe("fs.walk.skipped");
    expect(deeper.code).toBe(1);
  });
});
