/**
 * End to end: the path gate under a race, and roots the server cannot read.
 */
import { describe, expect, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { AS_NOBODY, NOBODY, nobodyBase } from "../support/nobody.ts";
import { RTA, rta } from "../support/rta.ts";

describe("a directory swapped for a symlink to /etc while it is read", () => {
  test("10,000 reads through it: none lands outside the root", async () => {
    const root = realpathSync(tempDir());
    mkdirSync(join(root, "sw"));
    writeFileSync(join(root, "sw", "hostname"), "INSIDE\n");
    const swapper = Bun.spawn([process.execPath, join(import.meta.dir, "swapper.fixture.ts"), root], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const s = await connect("legacy", ["--root", root]);
    const seen = new Map<string, number>();
    try {
      for (let batch = 0; batch < 100; batch++) {
        const results = await Promise.all(
          Array.from({ length: 100 }, () => s.client.callTool({ name: "fs_read", arguments: { path: "sw/hostname" } })),
        );
        for (const r of results) {
          const v = resultJson(r);
          const key = v.type === "text" ? `text:${v.text}` : `error:${v.code}`;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      }
    } finally {
      swapper.kill();
      await s.close();
    }
    const total = [...seen.values()].reduce((a, b) => a + b, 0);
    expect(total).toBe(10_000);
    for (const key of seen.keys())
      expect(["text:INSIDE\n", "error:core.path.symlink", "error:fs.notfound"]).toContain(key);
    // The race was real: both sides of the swap were met.
    expect(seen.get("text:INSIDE\n") ?? 0).toBeGreaterThan(0);
    expect((seen.get("error:core.path.symlink") ?? 0) + (seen.get("error:fs.notfound") ?? 0)).toBeGreaterThan(0);
  }, 120_000);
});

describe("a root the server cannot read", () => {
  // Root ignores file modes, so the server runs as nobody for the mode to bite.
  test("is named once in the banner with the fix; the other roots keep working", async () => {
    const { base, bin } = nobodyBase();
    const locked = join(base, "search-only");
    const open = join(base, "open");
    mkdirSync(locked);
    mkdirSync(open);
    writeFileSync(join(locked, "a.txt"), "locked");
    writeFileSync(join(open, "b.txt"), "open");
    chmodSync(join(locked, "a.txt"), 0o644);
    chmodSync(join(open, "b.txt"), 0o644);
    chmodSync(locked, 0o711); // --x for everyone but its owner
    chmodSync(open, 0o755);
    const data = join(base, "data");
    mkdirSync(data);
    chownSync(data, NOBODY, NOBODY);
    const transport = new StdioClientTransport({
      command: AS_NOBODY[0] as string,
      args: [...AS_NOBODY.slice(1), bin, "mcp", "serve", "--root", locked, "--root", open],
      env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(data, "config") },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: "e2e", version: "1" });
    await client.connect(transport);
    try {
      const fromOpen = resultJson(await client.callTool({ name: "fs_read", arguments: { path: join(open, "b.txt") } }));
      expect(fromOpen).toEqual({ type: "text", text: "open" });
      for (let i = 0; i < 2; i++) {
        const fromLocked = resultJson(
          await client.callTool({ name: "fs_read", arguments: { path: join(locked, "a.txt") } }),
        );
        expect(fromLocked.code).toBe("core.path.unreadable");
        expect(JSON.stringify(fromLocked)).not.toContain(data);
      }
      const relative = resultJson(await client.callTool({ name: "fs_list", arguments: { path: "." } }));
      expect(relative.code).toBe("core.path.unreadable");
    } finally {
      await client.close();
    }
    const mentions = stderr.split("\n").filter((l) => l.includes(locked) && l.includes("cannot be read"));
    expect(mentions).toEqual([
      `rta: root ${locked} cannot be read, so every path under it is refused: it cannot be listed (its mode lets it be searched but not read); give it read permission, e.g. chmod u+r`,
    ]);
    expect(stderr).not.toContain(`root ${open} cannot be read`);
  });
});

describe("the roots a client offers", () => {
  test("are asked for on the 2025-11-25 flow and widen the gate for that session", async () => {
    const serverRoot = realpathSync(tempDir());
    const offered = realpathSync(tempDir());
    writeFileSync(join(offered, "offered.txt"), "from the client's root");
    const transport = new StdioClientTransport({
      command: RTA,
      args: ["mcp", "serve", "--root", serverRoot],
      env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    const client = new Client({ name: "e2e", version: "1" }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: `file://${offered}`, name: "offered" }] }));
    await client.connect(transport);
    try {
      let out: Record<string, unknown> = {};
      for (let i = 0; i < 50; i++) {
        out = resultJson(await client.callTool({ name: "fs_read", arguments: { path: join(offered, "offered.txt") } }));
        if (out.type === "text") break;
        await Bun.sleep(20); // the server asks for the roots right after the handshake
      }
      expect(out).toEqual({ type: "text", text: "from the client's root" });
      expect(stderr).toContain(`rta: the client offered roots: ${offered}`);
    } finally {
      await client.close();
    }
  });
});

describe("a client's registration in a root the client offers", () => {
  test("is not written by an agent, as in the server's own roots", async () => {
    const serverRoot = realpathSync(tempDir());
    const offered = realpathSync(tempDir());
    const env = { PATH: process.env.PATH ?? "", HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
    expect(Bun.spawnSync([RTA, "grant", "allow", "fs", "--agent", "e2e", "--ttl", "10m"], { env }).exitCode).toBe(0);
    const transport = new StdioClientTransport({
      command: RTA,
      args: ["mcp", "serve", "--agent", "e2e", "--root", serverRoot],
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e", version: "1" }, { capabilities: { roots: { listChanged: true } } });
    client.setRequestHandler("roots/list", async () => ({ roots: [{ uri: `file://${offered}`, name: "offered" }] }));
    await client.connect(transport);
    const call = async (name: string, args: Record<string, unknown>) =>
      resultJson(await client.callTool({ name, arguments: args }));
    try {
      for (let i = 0; i < 50; i++) {
        if ((await call("fs_list", { path: offered })).type === "table") break;
        await Bun.sleep(20); // the server asks for the roots right after the handshake
      }
      for (const file of [".mcp.json", ".vscode/mcp.json", ".cursor/mcp.json", ".gemini/settings.json"]) {
        const path = join(offered, file);
        expect([file, (await call("fs_write", { path, content: "{}" })).code]).toEqual([file, "core.path.withheld"]);
        expect(existsSync(path)).toBe(false);
      }
      // beside them, the offered root is written as any root
      expect(await call("fs_write", { path: join(offered, "notes.md"), content: "x" })).toMatchObject({
        value: { created: true },
      });
    } finally {
      await client.close();
    }
  });
});

describe("what the system refuses", () => {
  // Root ignores file modes, so rta runs as nobody for the mode to bite.
  test("a write into a directory the user may not write is fs.denied, with no errno and no stack", async () => {
    const { base, bin } = nobodyBase();
    const shut = join(base, "shut");
    mkdirSync(shut);
    chmodSync(shut, 0o755); // root's: nobody may read it, not write it
    const data = join(base, "data");
    mkdirSync(data);
    chownSync(data, NOBODY, NOBODY);
    const proc = Bun.spawn([...AS_NOBODY, bin, "fs", "write", join(shut, "x.txt"), "--content", "y"], {
      env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(data, "c") },
      stderr: "pipe",
      stdout: "pipe",
    });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(3);
    expect(stderr).toBe(
      "rta: error: the system refused it: permission denied (fs.denied)\nrta: hint: the person running rta can change the owner or mode of what it names\n",
    );
  });
});

describe("a removal of a tree that holds a directory the server cannot open", () => {
  // Root ignores file modes, so rta runs as nobody for the mode to bite. What is in that directory cannot be
  // looked at, so the first pass cannot say the tree holds nothing kept: it is refused before anything is removed.
  test("is core.path.unreadable, and nothing in it is removed", async () => {
    const { base, bin } = nobodyBase();
    const tree = join(base, "tree");
    mkdirSync(join(tree, "zz-shut"), { recursive: true });
    writeFileSync(join(tree, "a.txt"), "first in name order");
    writeFileSync(join(tree, "zz-shut", "kept.txt"), "behind a mode");
    for (const p of [tree, join(tree, "a.txt"), join(tree, "zz-shut"), join(tree, "zz-shut", "kept.txt")])
      chownSync(p, NOBODY, NOBODY);
    chmodSync(join(tree, "zz-shut"), 0o300); // its owner may write and search it, not list it
    const data = join(base, "data");
    mkdirSync(data);
    chownSync(data, NOBODY, NOBODY);
    const proc = Bun.spawn([...AS_NOBODY, bin, "fs", "rm", tree, "--recursive"], {
      env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(data, "c") },
      stderr: "pipe",
      stdout: "pipe",
    });
    const [, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(stderr).toContain("(core.path.unreadable)");
    expect(readdirSync(tree).sort()).toEqual(["a.txt", "zz-shut"]);
  });
});

/** A server for agent `claude`, with a grant for every fs verb, rooted at `root`, its own places as `env` names them. */
async function grantedServer(
  root: string,
  env: { RTA_DATA_DIR: string; RTA_CONFIG_DIR: string } & Record<string, string>,
) {
  const granted = await rta(["grant", "allow", "fs", "--agent", "claude", "--ttl", "10m"], { env });
  expect(granted.code).toBe(0);
  const s = await connect("modern", ["--agent", "claude", "--root", root], { dataDir: env.RTA_DATA_DIR, env });
  const call = async (name: string, args: Record<string, unknown>) =>
    resultJson(await s.client.callTool({ name, arguments: args }));
  return { ...s, call };
}

/** Every file and dir under `dir`, relative to it, sorted, but what the server writes in its data dir (and a link to it). */
function listing(dir: string, data: string): string[] {
  const own = data.slice(dir.length + 1);
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((p) => !p.startsWith(`${own}/`) && !p.startsWith("via/"))
    .sort();
}

describe("rta's own places, not made yet, under a root", () => {
  // The config dir's parent is missing, as in a fresh home; a staged dir holds what an agent would plant.
  test("no verb, by any spelling, moves, makes or writes them or the way to them", async () => {
    const root = realpathSync(tempDir());
    const home = join(root, "home");
    const data = join(home, ".local/share/rta");
    const config = join(home, ".config/rta");
    const identity = join(home, "keys/identity.txt");
    mkdirSync(join(home, "keys"), { recursive: true });
    writeFileSync(identity, "AGE-SECRET-KEY-1NOTAREALKEY\n");
    mkdirSync(join(root, "stage/rta"), { recursive: true });
    writeFileSync(join(root, "stage/rta/config.toml"), 'roots = ["/"]\n');
    writeFileSync(join(root, "stage/rta/policy.toml"), 'max_ttl = "1000h"\n');
    writeFileSync(join(root, "stage/config.toml"), 'roots = ["/"]\n');
    symlinkSync(home, join(root, "via"));
    const s = await grantedServer(root, { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, RTA_KV_IDENTITY: identity });
    writeFileSync(join(data, "kv.age"), "age-encryption.org/v1\n");
    linkSync(join(data, "kv.age"), join(root, "kv-link.age"));
    const before = listing(root, data);
    const spell = (rel: string) => [rel, join(root, rel), `stage/../${rel}`, rel.replace(/^home\//, "via/")];
    const cases: [string, Record<string, unknown>, string][] = [];
    for (const c of spell("home/.config/rta")) {
      cases.push(["fs_move", { from: "stage/rta", to: c }, "core.path.withheld"]);
      cases.push(["fs_mkdir", { path: c, parents: true }, "core.path.withheld"]);
      cases.push(["fs_mkdir", { path: `${c}/sub`, parents: true }, "core.path.withheld"]);
      cases.push(["fs_write", { path: `${c}/config.toml`, content: 'roots = ["/"]\n' }, "core.path.withheld"]);
      cases.push(["fs_write", { path: c, content: "x" }, "core.path.withheld"]);
    }
    for (const c of spell("home/.config")) {
      // the way there: a staged dir moved onto the missing parent would carry a config into place
      cases.push(["fs_move", { from: "stage", to: c }, "core.path.withheld"]);
      cases.push(["fs_mkdir", { path: c }, "core.path.withheld"]);
      cases.push(["fs_write", { path: c, content: "x" }, "core.path.withheld"]);
    }
    for (const c of spell("home/.local/share/rta")) {
      cases.push(["fs_write", { path: `${c}/gate.db`, content: "x", mode: "overwrite" }, "core.path.withheld"]);
      cases.push(["fs_move", { from: c, to: "loot" }, "core.path.withheld"]);
    }
    for (const c of spell("home/keys/identity.txt")) {
      cases.push(["fs_read", { path: c }, "core.path.withheld"]);
      cases.push(["fs_write", { path: c, content: "x", mode: "overwrite" }, "core.path.withheld"]);
      cases.push(["fs_move", { from: c, to: "stolen.txt" }, "core.path.withheld"]);
      cases.push(["fs_move", { from: "stage/config.toml", to: c, overwrite: true }, "core.path.withheld"]);
      cases.push(["fs_rm", { path: c }, "core.path.withheld"]);
    }
    // an ancestor of each place, moved or removed whole
    for (const c of ["home", "home/.local", "home/keys"]) {
      cases.push(["fs_move", { from: c, to: "moved" }, "core.path.withheld"]);
      cases.push(["fs_rm", { path: c, recursive: true }, "core.path.withheld"]);
    }
    // a hard link to a file in the data dir is neither read nor written through
    cases.push(["fs_read", { path: "kv-link.age" }, "core.path.hardlink"]);
    cases.push(["fs_write", { path: "kv-link.age", content: "x", mode: "overwrite" }, "core.path.hardlink"]);
    cases.push(["fs_move", { from: "kv-link.age", to: "home/.config" }, "core.path.hardlink"]);
    try {
      const got = [];
      for (const [name, args] of cases) got.push([name, args, (await s.call(name, args)).code ?? "ok"]);
      expect(got).toEqual(cases);
      const grep = await s.call("fs_grep", { pattern: "AGE-SECRET", path: "." });
      expect(grep).toMatchObject({ type: "table", rows: [] });
      expect(listing(root, data)).toEqual(before);
      expect(existsSync(config)).toBe(false);
      // beside them, work goes on: a fresh home's .config is made for another program's dir
      expect(await s.call("fs_mkdir", { path: "home/.config/nvim", parents: true })).toMatchObject({ value: {} });
      expect(await s.call("fs_write", { path: "home/.config/nvim/init.lua", content: "-- x" })).toMatchObject({
        value: { created: true },
      });
      // and one the operator makes after the server started is withheld by every name
      mkdirSync(config);
      writeFileSync(join(config, "config.toml"), "");
      for (const c of spell("home/.config/rta/config.toml")) {
        expect((await s.call("fs_read", { path: c })).code).toBe("core.path.withheld");
        expect((await s.call("fs_write", { path: c, content: "x", mode: "overwrite" })).code).toBe(
          "core.path.withheld",
        );
      }
      expect(readFileSync(join(config, "config.toml"), "utf8")).toBe("");
    } finally {
      await s.close();
    }
  }, 60_000);
});

/** Runs git with a fixed identity and no config of the machine's, failing the test if it fails. */
function git(args: string[], env: Record<string, string> = {}): void {
  const r = Bun.spawnSync(["git", "-c", "user.name=t", "-c", "user.email=t@example.test", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1", ...env },
    stderr: "pipe",
  });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
}

describe("git dirs of any name", () => {
  // Each holds a credential in its config; git runs each one's hooks and core.fsmonitor as whoever uses it.
  test("a bare repo, a gitdir: target, a worktree's dir, a $GIT_DIR and git's config beside a home: none read for credentials, none written", async () => {
    const root = realpathSync(tempDir());
    const secret = "https://bob:s3cret-token@example.test/x.git";
    git(["init", "-q", "--bare", join(root, "proj.git")]);
    mkdirSync(join(root, "store"));
    git(["init", "-q", `--separate-git-dir=${join(root, "store/repo")}`, join(root, "sep")]);
    git(["-C", join(root, "sep"), "commit", "-q", "--allow-empty", "-m", "first"]);
    git(["-C", join(root, "sep"), "worktree", "add", "-q", join(root, "wt")]);
    git(["init", "-q"], { GIT_DIR: join(root, "meta") });
    for (const dir of ["proj.git", "store/repo", "meta"])
      git(["--git-dir", join(root, dir), "remote", "add", "o", secret]);
    writeFileSync(join(root, "store/repo/worktrees/wt/config.worktree"), `[remote "w"]\n\turl = ${secret}\n`);
    symlinkSync("proj.git", join(root, "alias"));
    mkdirSync(join(root, "half/objects"), { recursive: true });
    writeFileSync(join(root, "half/HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(root, "hook.sh"), "#!/bin/sh\necho planted\n");
    // git's own config beside a home under the root: ~/.gitconfig made, ~/.config/git not yet
    const home = join(root, "home");
    mkdirSync(home);
    writeFileSync(join(home, ".gitconfig"), `[url "${secret}"]\n\tinsteadOf = https://example.test/\n`);
    mkdirSync(join(root, "staged-git"));
    writeFileSync(join(root, "staged-git/config"), "[core]\n\tfsmonitor = ./hook.sh\n");
    const data = tempDir();
    const s = await grantedServer(root, { RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(data, "config"), HOME: home });
    const before = listing(root, data);
    const cases: [string, Record<string, unknown>, string][] = [];
    for (const dir of ["proj.git", join(root, "proj.git"), "sep/../proj.git", "alias", "store/repo", "meta"]) {
      cases.push(["fs_read", { path: `${dir}/config` }, "core.path.withheld"]);
      cases.push(["fs_write", { path: `${dir}/hooks/post-checkout`, content: "#!/bin/sh\n" }, "core.path.withheld"]);
      cases.push([
        "fs_write",
        { path: `${dir}/config`, content: "[core]\n\tfsmonitor = x\n", mode: "append" },
        "core.path.withheld",
      ]);
      cases.push(["fs_mkdir", { path: `${dir}/hooks/new`, parents: true }, "core.path.withheld"]);
      cases.push(["fs_move", { from: "hook.sh", to: `${dir}/hooks/pre-commit` }, "core.path.withheld"]);
      cases.push(["fs_read", { path: `${dir}/HEAD` }, "ok"]);
    }
    cases.push(["fs_read", { path: "store/repo/worktrees/wt/config.worktree" }, "core.path.withheld"]);
    cases.push([
      "fs_write",
      { path: "store/repo/worktrees/wt/HEAD", content: "x", mode: "overwrite" },
      "core.path.withheld",
    ]);
    // a git dir itself is not moved, removed or replaced, nor a dir made into one
    cases.push(["fs_move", { from: "proj.git", to: "elsewhere.git" }, "core.path.withheld"]);
    cases.push(["fs_rm", { path: "meta", recursive: true }, "core.path.withheld"]);
    cases.push(["fs_mkdir", { path: "half/refs" }, "core.path.withheld"]);
    cases.push(["fs_mkdir", { path: "half/refs/heads", parents: true }, "core.path.withheld"]);
    // the gitdir: files themselves are .git, never written; the work trees are
    cases.push([
      "fs_write",
      { path: "sep/.git", content: "gitdir: ../half\n", mode: "overwrite" },
      "core.path.withheld",
    ]);
    cases.push([
      "fs_write",
      { path: "wt/.git", content: "gitdir: ../half\n", mode: "overwrite" },
      "core.path.withheld",
    ]);
    cases.push(["fs_read", { path: "home/.gitconfig" }, "core.path.withheld"]);
    cases.push([
      "fs_write",
      { path: "home/.gitconfig", content: "[core]\n\tfsmonitor = x\n", mode: "append" },
      "core.path.withheld",
    ]);
    cases.push([
      "fs_move",
      { from: "staged-git/config", to: "home/.gitconfig", overwrite: true },
      "core.path.withheld",
    ]);
    cases.push(["fs_move", { from: "staged-git", to: "home/.config/git" }, "core.path.withheld"]);
    cases.push([
      "fs_write",
      { path: "home/.config/git/config", content: "[core]\n\tfsmonitor = x\n" },
      "core.path.withheld",
    ]);
    cases.push(["fs_mkdir", { path: "home/.config/git", parents: true }, "core.path.withheld"]);
    try {
      const got = [];
      for (const [name, args] of cases) got.push([name, args, (await s.call(name, args)).code ?? "ok"]);
      expect(got).toEqual(cases);
      expect(listing(root, data)).toEqual(before);
      const grep = await s.call("fs_grep", { pattern: "s3cret", path: "." });
      expect(grep).toMatchObject({ type: "table", rows: [] });
      expect(await s.call("fs_write", { path: "wt/notes.md", content: "x" })).toMatchObject({
        value: { created: true },
      });
      expect(await s.call("fs_write", { path: "sep/notes.md", content: "x" })).toMatchObject({
        value: { created: true },
      });
    } finally {
      await s.close();
    }
  }, 60_000);
});
