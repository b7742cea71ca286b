import { beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin } from "../../src/core/call.ts";
import { forAgent } from "../../src/core/result.ts";
import type { Deps } from "../../src/gate/deps.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { grantFor, tempDir, testDeps } from "../support/fixtures.ts";

const catalogue = builtinCatalogue();
const origin: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
let root = "";
let outside = "";
let deps: Deps;

beforeEach(() => {
  root = realpathSync(tempDir());
  outside = realpathSync(tempDir());
  writeFileSync(join(outside, "keep.txt"), "outside");
  mkdirSync(join(root, "src/deep"), { recursive: true });
  writeFileSync(join(root, "README.md"), "# title\nline two\nline three\n");
  writeFileSync(join(root, "src/a.ts"), "const a = 1; // TODO one\nexport {};\n");
  writeFileSync(join(root, "src/deep/b.ts"), "// todo two\n// TODO three\n");
  writeFileSync(join(root, "bin.dat"), Buffer.from([1, 2, 0, 3]));
  writeFileSync(join(root, ".hidden"), "h");
  symlinkSync(outside, join(root, "src/out-link"));
  const base = testDeps();
  deps = { ...base, roots: new PathGate([root], agentRules(base.dirs)) };
  grantFor(deps, { target: "fs" });
});

async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = await runCall({ capability: tool, args, origin }, catalogue, deps);
  if (!out.ok) return { code: out.error.code, message: out.error.message };
  return forAgent(out.value) as unknown as Record<string, unknown>;
}

describe("a walk's progress", () => {
  test("a person's call is told what fs.grep and fs.find have seen; an agent's is never handed the callback", async () => {
    const person = { kind: "person" as const };
    for (const [capability, args] of [
      ["fs.grep", { pattern: "TODO", path: root }],
      ["fs.find", { path: root }],
    ] as const) {
      const seen: { files: number; bytes: number }[] = [];
      const out = await runCall({ capability, args, origin: person }, catalogue, deps, {
        progress: (s) => seen.push({ ...s }),
      });
      expect(out.ok).toBe(true);
      expect(seen.length).toBeGreaterThan(3);
      expect(seen.at(-1)?.files).toBeGreaterThan(seen[0]?.files ?? 0);
      expect(seen.at(-1)?.bytes).toBeGreaterThan(0);
    }
    let told = 0;
    const agent = await runCall({ capability: "fs_grep", args: { pattern: "TODO" }, origin }, catalogue, deps, {
      progress: () => told++,
    });
    expect(agent.ok).toBe(true);
    expect(told).toBe(0);
  });
});

describe("reads", () => {
  test("fs_list: name, type, size, mtime and mode; hidden only when asked", async () => {
    const t = await call("fs_list", { path: "." });
    expect(t.columns).toEqual(["name", "type", "size", "mtime", "mode"]);
    expect((t.rows as unknown[][]).map((r) => r[0])).toEqual(["README.md", "bin.dat", "src"]);
    expect((t.rows as unknown[][])[0]?.slice(1, 3)).toEqual(["file", 28]);
    const all = await call("fs_list", { path: ".", hidden: true });
    expect((all.rows as unknown[][]).map((r) => r[0])).toContain(".hidden");
    expect(await call("fs_list", { path: "README.md" })).toMatchObject({ code: "fs.notdir" });
  });

  test("fs_stat describes what is there", async () => {
    const s = (await call("fs_stat", { path: "src" })) as { value: Record<string, unknown> };
    expect(s.value).toMatchObject({ path: "src", type: "dir", mode: "rwxr-xr-x" });
  });

  test("fs_read by bytes and by lines, saying how to read on; binary refused", async () => {
    expect(await call("fs_read", { path: "README.md" })).toEqual({
      type: "text",
      text: "# title\nline two\nline three\n",
    });
    expect(await call("fs_read", { path: "README.md", offset: 2, length: 5 })).toEqual({
      type: "text",
      text: "title\n[21 more bytes: read on with offset=7]",
    });
    expect(await call("fs_read", { path: "README.md", from_line: 2, lines: 1 })).toEqual({
      type: "text",
      text: "line two\n[more lines follow: read on with from_line=3]",
    });
    expect(await call("fs_read", { path: "README.md", from_line: 3 })).toEqual({ type: "text", text: "line three" });
    expect(await call("fs_read", { path: "bin.dat" })).toMatchObject({ code: "fs.binary" });
    expect(await call("fs_read", { path: "src" })).toMatchObject({ code: "fs.notfile" });
  });

  test("fs_tree to a depth, never following a link out", async () => {
    const t = (await call("fs_tree", { path: ".", depth: 3 })) as {
      root: { children: { name: string; children?: { name: string }[] }[] };
    };
    const names = t.root.children.map((c) => c.name);
    expect(names).toEqual(["README.md", "bin.dat", "src/"]);
    const src = t.root.children.find((c) => c.name === "src/");
    expect(src?.children?.map((c) => c.name)).toEqual(["a.ts", "deep/", "out-link"]);
    expect(JSON.stringify(t)).not.toContain("keep.txt");
  });

  test("fs_find by glob, type and size", async () => {
    const t = await call("fs_find", { path: ".", name: "*.ts", type: "file" });
    expect((t.rows as unknown[][]).map((r) => r[0])).toEqual(["src/a.ts", "src/deep/b.ts"]);
    const big = await call("fs_find", { path: ".", type: "file", min_size: 27 });
    expect((big.rows as unknown[][]).map((r) => r[0])).toEqual(["README.md", "src/a.ts"]);
    const links = await call("fs_find", { path: ".", type: "link" });
    expect((links.rows as unknown[][]).map((r) => r[0])).toEqual(["src/out-link"]);
  });

  test("fs_grep: file, line and text; case; RE2 runs what backtracking could not and refuses what it cannot take", async () => {
    const t = await call("fs_grep", { pattern: "TODO", path: "src" });
    expect(t.rows).toEqual([
      ["src/a.ts", 1, "const a = 1; // TODO one"],
      ["src/deep/b.ts", 2, "// TODO three"],
    ]);
    const i = await call("fs_grep", { pattern: "todo", path: ".", ignore_case: true, glob: "b.ts" });
    expect((i.rows as unknown[][]).length).toBe(2);
    // nested quantifiers are linear under RE2: they run and answer
    expect((await call("fs_grep", { pattern: "(a+)+$", path: "." })).type).toBe("table");
    expect((await call("fs_grep", { pattern: "([a-z]*)*x", path: "." })).type).toBe("table");
    for (const bad of ["(unclosed", "(a)\\1", "(?=T)ODO", "(?<!x)TODO", "a{1001}"])
      expect(await call("fs_grep", { pattern: bad, path: "." })).toMatchObject({ code: "core.input.invalid" });
    const one = await call("fs_grep", { pattern: "TODO", path: ".", max_matches: 1 });
    expect((one.rows as unknown[][]).length).toBe(1);
  });

  test("fs_hash is sha256", async () => {
    const h = (await call("fs_hash", { path: "README.md" })) as { value: { sha256: string } };
    expect(h.value.sha256).toBe(new Bun.CryptoHasher("sha256").update("# title\nline two\nline three\n").digest("hex"));
  });

  test("fs_hash of a large file lets the server go on, and stops when the call is cancelled", async () => {
    writeFileSync(join(root, "disk.img"), "");
    truncateSync(join(root, "disk.img"), 64 * 1024 * 1024);
    let done = false;
    const hashing = call("fs_hash", { path: "disk.img" }).then((r) => {
      done = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    expect(done).toBe(false);
    expect(await hashing).toMatchObject({ value: { size: 64 * 1024 * 1024 } });
    const stop = new AbortController();
    stop.abort();
    const out = await runCall({ capability: "fs_hash", args: { path: "disk.img" }, origin }, catalogue, deps, {
      signal: stop.signal,
    });
    expect(out.ok ? "ran" : out.error.code).toBe("core.call.cancelled");
  });

  test("log_tail: the last lines, with a filter", async () => {
    writeFileSync(
      join(root, "app.log"),
      `${Array.from({ length: 500 }, (_, i) => `line ${i + 1}${i % 100 === 0 ? " ERROR" : ""}`).join("\n")}\n`,
    );
    const t = await call("log_tail", { path: "app.log", lines: 3 });
    expect(t).toMatchObject({
      type: "log",
      rows: [
        [-3, "line 498"],
        [-2, "line 499"],
        [-1, "line 500"],
      ],
    });
    const errors = await call("log_tail", { path: "app.log", lines: 2, filter: "ERROR" });
    expect(errors.rows).toEqual([
      [-200, "line 301 ERROR"],
      [-100, "line 401 ERROR"],
    ]);
  });
});

describe("writes", () => {
  test("fs_write creates, refuses to create over a file, overwrites and appends, leaving no temporary file", async () => {
    expect(await call("fs_write", { path: "src/new.txt", content: "one" })).toMatchObject({
      value: { created: true, bytes: 3 },
    });
    expect(await call("fs_write", { path: "src/new.txt", content: "x" })).toMatchObject({ code: "fs.exists" });
    await call("fs_write", { path: "src/new.txt", content: "two", mode: "overwrite" });
    await call("fs_write", { path: "src/new.txt", content: "+three", mode: "append" });
    expect(readFileSync(join(root, "src/new.txt"), "utf8")).toBe("two+three");
    expect(readdirSync(join(root, "src")).filter((n) => n.includes(".tmp"))).toEqual([]);
  });

  test("writing at a link's name replaces the link and never writes where it pointed", async () => {
    symlinkSync(join(outside, "keep.txt"), join(root, "link-to-outside.txt"));
    expect(await call("fs_write", { path: "link-to-outside.txt", content: "mine", mode: "append" })).toMatchObject({
      code: "fs.notfile",
    });
    await call("fs_write", { path: "link-to-outside.txt", content: "mine", mode: "overwrite" });
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("outside");
    expect(readFileSync(join(root, "link-to-outside.txt"), "utf8")).toBe("mine");
  });

  test("fs_mkdir with parents makes each level inside the one before", async () => {
    expect(await call("fs_mkdir", { path: "x/y/z" })).toMatchObject({ code: "fs.notfound" });
    expect(await call("fs_mkdir", { path: "x/y/z", parents: true })).toMatchObject({ value: { created: true } });
    expect(statSync(join(root, "x/y/z")).isDirectory()).toBe(true);
    expect(await call("fs_mkdir", { path: "src/out-link/x", parents: true })).toMatchObject({
      code: "core.path.symlink",
    });
    expect(await call("fs_mkdir", { path: "../escape", parents: true })).toMatchObject({ code: "core.path.outside" });
  });

  test("fs_move needs both ends under a root", async () => {
    expect(await call("fs_move", { from: "README.md", to: "src/README.md" })).toMatchObject({ value: { moved: true } });
    expect(existsSync(join(root, "src/README.md"))).toBe(true);
    expect(await call("fs_move", { from: "src/a.ts", to: join(outside, "a.ts") })).toMatchObject({
      code: "core.path.outside",
    });
    expect(await call("fs_move", { from: "src/a.ts", to: "src/deep/b.ts" })).toMatchObject({ code: "fs.exists" });
  });

  test("fs_rm: a file; a directory only with recursive; a link inside is removed, not followed", async () => {
    expect(await call("fs_rm", { path: "src" })).toMatchObject({ code: "fs.notempty" });
    expect(await call("fs_rm", { path: "src", recursive: true })).toMatchObject({ value: { removed: 5 } });
    expect(existsSync(join(root, "src"))).toBe(false);
    expect(readFileSync(join(outside, "keep.txt"), "utf8")).toBe("outside");
    expect(await call("fs_rm", { path: "README.md" })).toMatchObject({ value: { removed: 1 } });
    expect(await call("fs_rm", { path: "README.md" })).toMatchObject({ code: "fs.notfound" });
  });

  test("a write needs a grant, and the path gate holds under it", async () => {
    deps.gate().revoke({ all: true }, deps.clock.now());
    expect(await call("fs_write", { path: "g.txt", content: "x" })).toMatchObject({ code: "core.grant.required" });
    expect(existsSync(join(root, "g.txt"))).toBe(false);
  });
});

describe("rta's own dirs under a root", () => {
  test("no write moves, removes or plants anything in them, nor in a directory above them", async () => {
    const home = realpathSync(tempDir());
    const dirs = { data: join(home, ".local/share/rta"), config: join(home, ".config/rta") };
    mkdirSync(dirs.data, { recursive: true });
    writeFileSync(join(dirs.data, "agent-log.jsonl"), "{}\n");
    mkdirSync(join(home, ".config"));
    deps = { ...deps, roots: new PathGate([home], agentRules(dirs)) };
    const withheld = { code: "core.path.withheld" };
    expect(await call("fs_move", { from: ".local/share/rta", to: "loot" })).toMatchObject(withheld);
    expect(await call("fs_move", { from: ".local", to: "moved" })).toMatchObject(withheld);
    expect(await call("fs_rm", { path: ".local", recursive: true })).toMatchObject(withheld);
    expect(await call("fs_write", { path: ".local/share/rta/planted", content: "x" })).toMatchObject(withheld);
    expect(await call("fs_move", { from: "nothing-yet", to: ".local/share/rta/x" })).toMatchObject(withheld);
    // not yet made: neither it nor anything in it is made for an agent
    expect(await call("fs_mkdir", { path: ".config/rta/x", parents: true })).toMatchObject(withheld);
    expect(await call("fs_write", { path: ".config/rta", content: "x" })).toMatchObject(withheld);
    expect(existsSync(dirs.config)).toBe(false);
    expect(readdirSync(dirs.data)).toEqual(["agent-log.jsonl"]);
    // a listing passes them by, as a walk does
    expect(JSON.stringify(await call("fs_list", { path: ".local/share", hidden: true }))).not.toContain('"rta"');
    // beside them, writes go on as before
    expect(await call("fs_mkdir", { path: ".local/share/other", parents: true })).toMatchObject({ value: {} });
  });

  test("in a fresh home, a directory beside where they will be is made; through a linked parent they are still withheld", async () => {
    const home = realpathSync(tempDir());
    mkdirSync(join(home, "dots/local"), { recursive: true });
    symlinkSync(join(home, "dots/local"), join(home, ".local"));
    const dirs = { data: join(home, ".local/share/rta"), config: join(home, ".config/rta") };
    deps = { ...deps, roots: new PathGate([home], agentRules(dirs)) };
    expect(await call("fs_mkdir", { path: ".config/nvim", parents: true })).toMatchObject({ value: {} });
    // made after the rules were fixed, behind a link: by either name it is withheld
    mkdirSync(dirs.data, { recursive: true });
    writeFileSync(join(dirs.data, "agent-log.jsonl"), "{}\n");
    const withheld = { code: "core.path.withheld" };
    expect(await call("fs_read", { path: "dots/local/share/rta/agent-log.jsonl" })).toMatchObject(withheld);
    expect(await call("fs_read", { path: ".local/share/rta/agent-log.jsonl" })).toMatchObject(withheld);
    expect(await call("fs_write", { path: "dots/local/share/rta/planted", content: "x" })).toMatchObject(withheld);
  });

  test("a staged config moved onto the missing parent of the config dir is refused, by every verb and spelling", async () => {
    const home = realpathSync(tempDir());
    const dirs = { data: join(home, ".local/share/rta"), config: join(home, ".config/rta") };
    mkdirSync(join(home, "stage/rta"), { recursive: true });
    writeFileSync(join(home, "stage/rta/config.toml"), 'roots = ["/"]\n');
    symlinkSync(".", join(home, "here"));
    deps = { ...deps, roots: new PathGate([home], agentRules(dirs)) };
    const withheld = { code: "core.path.withheld" };
    for (const to of [".config", "here/.config", "stage/../.config", join(home, ".config")]) {
      expect(await call("fs_move", { from: "stage", to })).toMatchObject(withheld);
      expect(await call("fs_move", { from: "stage/rta", to: `${to}/rta` })).toMatchObject(withheld);
      expect(await call("fs_write", { path: `${to}/rta/config.toml`, content: "x" })).toMatchObject(withheld);
      expect(await call("fs_write", { path: to, content: "x" })).toMatchObject(withheld);
      expect(await call("fs_mkdir", { path: to })).toMatchObject(withheld);
      expect(await call("fs_mkdir", { path: `${to}/rta`, parents: true })).toMatchObject(withheld);
    }
    expect(existsSync(join(home, ".config"))).toBe(false);
  });

  test("a root that is one of them is refused as a whole", async () => {
    const dirs = testDeps().dirs;
    mkdirSync(dirs.data, { recursive: true });
    deps = { ...deps, roots: new PathGate([dirs.data], agentRules(dirs)) };
    expect(await call("fs_list", { path: "." })).toMatchObject({ code: "core.path.withheld" });
    expect(await call("fs_write", { path: "new.txt", content: "x" })).toMatchObject({ code: "core.path.withheld" });
  });
});

describe("what a write keeps and what a walk passes by", () => {
  test("a rewrite keeps the permission bits and never setuid, setgid or sticky", async () => {
    writeFileSync(join(root, "build.log"), "old\n");
    chmodSync(join(root, "build.log"), 0o6755);
    expect(await call("fs_write", { path: "build.log", content: "new\n", mode: "append" })).toMatchObject({
      value: { bytes: 8 },
    });
    expect(statSync(join(root, "build.log")).mode & 0o7777).toBe(0o755);
  });

  test("a name of 255 bytes in a wide script is written whole", async () => {
    const name = "€".repeat(85);
    expect(await call("fs_write", { path: name, content: "x" })).toMatchObject({ value: { created: true } });
    expect(readFileSync(join(root, name), "utf8")).toBe("x");
  });

  test("fs_grep passes by every git credential store fs_read refuses", async () => {
    for (const f of [".git/modules/lib/config", ".git/worktrees/wt/config.worktree", ".config/git/credentials"]) {
      mkdirSync(join(root, f, ".."), { recursive: true });
      writeFileSync(join(root, f), "password = NEEDLE\n");
      expect(await call("fs_read", { path: f })).toMatchObject({ code: "core.path.withheld" });
    }
    writeFileSync(join(root, "plain.txt"), "NEEDLE\n");
    const out = await call("fs_grep", { pattern: "NEEDLE", path: "." });
    expect(JSON.stringify(out)).toContain("plain.txt");
    expect(JSON.stringify(out)).not.toContain("config");
    expect(JSON.stringify(out)).not.toContain("credentials");
  });
});

describe("mistakes the kernel would otherwise report raw", () => {
  test("a name past 255 bytes, a move into itself, a directory over a file: each a code, none internal", async () => {
    expect(await call("fs_read", { path: "x".repeat(300) })).toMatchObject({ code: "core.path.invalid" });
    expect(await call("fs_write", { path: `src/${"y".repeat(300)}`, content: "x" })).toMatchObject({
      code: "core.path.invalid",
    });
    expect(await call("fs_move", { from: "src", to: "src/deep/src" })).toMatchObject({ code: "core.input.invalid" });
    expect(await call("fs_move", { from: "src/deep", to: "README.md", overwrite: true })).toMatchObject({
      code: "fs.exists",
    });
    expect(readFileSync(join(root, "README.md"), "utf8")).toContain("# title");
  });
});

test("fs_mkdir with parents makes nothing for a path that climbs out", async () => {
  expect(await call("fs_mkdir", { path: "n1/n2/../../../x", parents: true })).toMatchObject({
    code: "core.path.outside",
  });
  expect(existsSync(join(root, "n1"))).toBe(false);
});

test("fs_read by lines counts a long line before the range without holding it, and cuts one inside it", async () => {
  writeFileSync(join(root, "long.txt"), `${"a".repeat(3 * 1024 * 1024)}\nsecond\nthird\n`);
  expect(await call("fs_read", { path: "long.txt", from_line: 2, lines: 1 })).toEqual({
    type: "text",
    text: "second\n[more lines follow: read on with from_line=3]",
  });
  expect(await call("fs_read", { path: "long.txt", from_line: 9 })).toEqual({
    type: "text",
    text: "[the file has 3 lines]",
  });
  const first = (await call("fs_read", { path: "long.txt", from_line: 1, lines: 1 })) as { text: string };
  expect(first.text.length).toBeLessThan(1024 * 1024 + 200);
  expect(first.text).toContain("read it by offset instead");
});

test("a person's fs.read of a file the kernel makes as it is read gets its text, not nothing", async () => {
  const out = await runCall(
    { capability: "fs.read", args: { path: "/proc/self/status" }, origin: { kind: "person" } },
    catalogue,
    deps,
  );
  expect(out.ok ? JSON.stringify(out.value) : out.error.code).toContain("Name:");
});
