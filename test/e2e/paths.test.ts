/**
 * End to end: the path gate under a race, and roots the server cannot read.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, chownSync, copyFileSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";

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
    const base = realpathSync(tempDir());
    chmodSync(base, 0o755);
    const bin = join(base, "rta");
    copyFileSync(RTA, bin);
    chmodSync(bin, 0o755);
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
    chownSync(data, 65534, 65534);
    const transport = new StdioClientTransport({
      command: "setpriv",
      args: ["--reuid=65534", "--regid=65534", "--clear-groups", bin, "mcp", "serve", "--root", locked, "--root", open],
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

describe("what the system refuses", () => {
  // Root ignores file modes, so rta runs as nobody for the mode to bite.
  test("a write into a directory the user may not write is fs.denied, with no errno and no stack", async () => {
    const base = realpathSync(tempDir());
    chmodSync(base, 0o755);
    const bin = join(base, "rta");
    copyFileSync(RTA, bin);
    chmodSync(bin, 0o755);
    const shut = join(base, "shut");
    mkdirSync(shut);
    chmodSync(shut, 0o755); // root's: nobody may read it, not write it
    const data = join(base, "data");
    mkdirSync(data);
    chownSync(data, 65534, 65534);
    const proc = Bun.spawn(
      [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        bin,
        "fs",
        "write",
        join(shut, "x.txt"),
        "--content",
        "y",
      ],
      {
        env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: join(data, "c") },
        stderr: "pipe",
        stdout: "pipe",
      },
    );
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(3);
    expect(stderr).toBe(
      "rta: error: the system refused it: permission denied (fs.denied)\nrta: hint: the person running rta can change the owner or mode of what it names\n",
    );
  });
});
