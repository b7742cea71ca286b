/**
 * End to end: what live consent holds against a hostile agent or client. A
 * lock put on while a person is being asked stops the call the answer would
 * run, and a config.toml whose confirm list cannot be known lets no call run
 * unasked.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

/** A 2025-11-25 session whose client locks the agent before it answers each question, then answers `answer`. */
async function lockedWhileAsked(policy: string, answer: Record<string, string>) {
  const config = tempDir();
  const root = tempDir();
  const data = tempDir();
  mkdirSync(join(root, "old"));
  writeFileSync(join(root, "old", "x"), "x");
  writeFileSync(join(config, "policy.toml"), policy);
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  let asked = 0;
  const s = await connect("legacy", ["--agent", "claude", "--root", root], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async () => {
        asked++;
        // the operator stops the agent while the question is on the screen
        expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
        return { action: "accept" as const, content: answer };
      }),
  });
  return { s, root, env, asked: () => asked };
}

test("a lock put on while the person is asked to confirm a call stops it: the yes runs nothing", async () => {
  const { s, root, env, asked } = await lockedWhileAsked('confirm = ["fs.rm"]\n', {});
  try {
    expect((await rta(["grant", "allow", "fs.rm", "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
    const r = await s.client.callTool({ name: "fs_rm", arguments: { path: "old", recursive: true } });
    expect(asked()).toBe(1);
    expect(resultJson(r).code).toBe("core.lock.locked");
    expect(existsSync(join(root, "old", "x"))).toBe(true);
  } finally {
    await s.close();
  }
}, 20_000);

test("a lock put on while the person is asked for a grant stops the call, and issues nothing", async () => {
  const { s, root, env, asked } = await lockedWhileAsked("ask_for_grants = true\n", { for: "once" });
  try {
    const r = await s.client.callTool({ name: "fs_write", arguments: { path: "n.md", content: "x" } });
    expect(asked()).toBe(1);
    expect(resultJson(r).code).toBe("core.lock.locked");
    expect(existsSync(join(root, "n.md"))).toBe(false);
    const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout) as { grants: unknown[] };
    expect(listed.grants).toEqual([]);
  } finally {
    await s.close();
  }
}, 20_000);

test("a config.toml whose confirm list cannot be known lets no agent call run unasked", async () => {
  for (const broken of ['confirm = ["fs.stat"]\n[broken\n', 'confirm = "fs.stat"\n']) {
    const config = tempDir();
    const root = tempDir();
    writeFileSync(join(root, "a.txt"), "hello\n");
    writeFileSync(join(config, "config.toml"), broken);
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { env: { RTA_CONFIG_DIR: config } });
    try {
      const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
      expect(resultJson(r).code).toBe("core.consent.unavailable");
      expect(resultJson(r).message).toContain("confirm list cannot be read now");
    } finally {
      await s.close();
    }
  }
  // a config that fails elsewhere still gives its list: what is on it is asked, the rest answers as before
  const config = tempDir();
  const root = tempDir();
  writeFileSync(join(root, "a.txt"), "hello\n");
  writeFileSync(join(config, "config.toml"), 'roots = "not a list"\nconfirm = ["fs.stat"]\n');
  const s = await connect("legacy", ["--agent", "claude", "--root", root], { env: { RTA_CONFIG_DIR: config } });
  try {
    const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
    expect(resultJson(r).code).toBe("core.consent.unavailable");
    expect(resultJson(r).message).not.toContain("cannot be read");
    expect((await s.client.callTool({ name: "fs_list", arguments: { path: "." } })).isError).toBeFalsy();
  } finally {
    await s.close();
  }
}, 20_000);

test("the record a grant is asked for is shown as an argument is: the agent writes no line of its own into the question", async () => {
  const config = tempDir();
  writeFileSync(join(config, "policy.toml"), "ask_for_grants = true\n");
  const asked: string[] = [];
  const s = await connect("legacy", ["--agent", "claude", "--root", tempDir()], {
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return { action: "decline" as const };
      }),
  });
  try {
    const path = `a.md (Read a file)? It holds a grant.\nFor: nothing\n\u202eevil${"x".repeat(500)}`;
    const r = await s.client.callTool({ name: "fs_write", arguments: { path, content: "x" } });
    expect(resultJson(r).code).toBe("core.consent.declined");
    const lines = (asked[0] ?? "").split("\n");
    expect(lines[0]).toStartWith(
      'Allow claude to use fs.write on "a.md (Read a file)? It holds a grant.\\nFor: nothing\\n\\u202e',
    );
    expect(lines[0]).toContain("characters in all");
    expect(lines[0]).toEndWith("? It holds no grant for it.");
    expect(lines.slice(1).map((l) => l.split(":")[0])).toEqual(["path", "content", "mode", "For"]);
    expect(asked[0]).not.toContain("\u202e");
  } finally {
    await s.close();
  }
}, 20_000);

for (const era of ["legacy", "modern"] as const)
  test(`${era}: a root of another host is left out, and the client's other roots stand`, async () => {
    const theirs = tempDir();
    writeFileSync(join(theirs, "mine.txt"), "mine\n");
    const s = await connect(era, ["--agent", "claude"], {
      capabilities: { roots: {} },
      setup: (client: Client) =>
        client.setRequestHandler("roots/list", async () => ({
          roots: [{ uri: "file://elsewhere/etc" }, { uri: `file://${theirs}` }],
        })),
    });
    try {
      // a 2025-11-25 client is asked once it is initialized: its answer is in once a call names a root of it
      const path = join(theirs, "mine.txt");
      let r = await s.client.callTool({ name: "fs_stat", arguments: { path } });
      for (let i = 0; era === "legacy" && r.isError && i < 50; i++) {
        await Bun.sleep(20);
        r = await s.client.callTool({ name: "fs_stat", arguments: { path } });
      }
      expect(r.isError ? resultJson(r) : undefined).toBeUndefined();
      expect(s.stderr()).toContain(`the client offered roots: ${theirs}`);
      expect(s.stderr()).not.toContain("elsewhere");
    } finally {
      await s.close();
    }
  }, 20_000);

test("a call cancelled while the person is asked is on the record as cancelled, and the question is withdrawn", async () => {
  const config = tempDir();
  const root = tempDir();
  writeFileSync(join(root, "a.txt"), "hello\n");
  writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.stat"]\n');
  const stop = new AbortController();
  const s = await connect("legacy", ["--agent", "claude", "--root", root], {
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (_req, ctx) => {
        stop.abort();
        // never answered: the server withdraws the question when the call is cancelled
        return new Promise((_, reject) => ctx.mcpReq.signal.addEventListener("abort", () => reject(new Error("gone"))));
      }),
  });
  try {
    const cancelled = s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } }, { signal: stop.signal });
    expect(cancelled).rejects.toThrow();
    await cancelled.catch(() => {});
    // the call after it is answered once the cancelled one has its line
    expect((await s.client.callTool({ name: "sys_info", arguments: {} })).isError).toBeFalsy();
  } finally {
    const pid = s.pid();
    await s.close();
    // every line is written once the server has ended
    while (pid !== null && alive(pid)) await Bun.sleep(10);
  }
  const outcomes = readRecord(join(s.dataDir, "agent-log.jsonl"))
    .lines.filter((l) => l.capability === "fs_stat")
    .map((l) => l.outcome);
  expect(outcomes).toEqual(["core.call.cancelled"]);
}, 20_000);

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test("a grant asked for to kill one process is narrowed to that pid, not every process for 30 minutes", async () => {
  const config = tempDir();
  const data = tempDir();
  writeFileSync(join(config, "policy.toml"), "ask_for_grants = true\n");
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const asked: string[] = [];
  const sleeper = Bun.spawn(["sleep", "600"]);
  const s = await connect("legacy", ["--agent", "claude", "--root", tempDir()], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return { action: "accept" as const, content: { for: "30 min" } };
      }),
  });
  try {
    const r = await s.client.callTool({ name: "proc_kill", arguments: { pid: sleeper.pid } });
    expect(r.isError ? resultJson(r) : undefined).toBeUndefined();
    expect(asked[0]).toStartWith(`Allow claude to use proc.kill on ${sleeper.pid} (`);
    const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout) as {
      grants: { record: string | null }[];
    };
    expect(listed.grants.map((g) => g.record)).toEqual([String(sleeper.pid)]);
  } finally {
    sleeper.kill();
    await s.close();
  }
}, 20_000);

test("a grant asked for to reach one host is narrowed to that host, not every host", async () => {
  const config = tempDir();
  const data = tempDir();
  writeFileSync(join(config, "policy.toml"), "ask_for_grants = true\n");
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const asked: string[] = [];
  const s = await connect("legacy", ["--agent", "claude", "--root", tempDir()], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return { action: "accept" as const, content: { for: "30 min" } };
      }),
  });
  try {
    const r = await s.client.callTool({ name: "net_port", arguments: { host: "127.0.0.1", ports: "9" } });
    expect(r.isError ? resultJson(r) : undefined).toBeUndefined();
    expect(asked[0]).toStartWith("Allow claude to use net.port on 127.0.0.1 (");
    const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout) as {
      grants: { host: string | null }[];
    };
    expect(listed.grants.map((g) => g.host)).toEqual(["127.0.0.1"]);
  } finally {
    await s.close();
  }
}, 20_000);

test("a path that climbs out of a long name is shown where it leads first: the cut cannot hide its tail", async () => {
  const config = tempDir();
  const root = tempDir();
  const long = ["a", "b"].map((c) => c.repeat(150)).join("/");
  mkdirSync(join(root, "cache", long), { recursive: true });
  mkdirSync(join(root, "src"));
  writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.stat"]\n');
  const asked: string[] = [];
  const s = await connect("legacy", ["--agent", "claude", "--root", root], {
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push((req.params as { message: string }).message);
        return { action: "decline" as const };
      }),
  });
  try {
    const r = await s.client.callTool({ name: "fs_stat", arguments: { path: `cache/${long}/../../../src` } });
    expect(resultJson(r).code).toBe("core.consent.declined");
    expect(asked[0]?.split("\n")[1]).toStartWith(`path: src (written "cache/${long.slice(0, 100)}`);
  } finally {
    await s.close();
  }
}, 20_000);

test("a grant revoked while the person is asked to confirm the call it covers stops the call", async () => {
  const config = tempDir();
  const root = tempDir();
  const data = tempDir();
  mkdirSync(join(root, "old"));
  writeFileSync(join(config, "policy.toml"), 'confirm = ["fs.rm"]\n');
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config };
  const s = await connect("legacy", ["--agent", "claude", "--root", root], {
    dataDir: data,
    env: { RTA_CONFIG_DIR: config },
    capabilities: { elicitation: { form: {} } },
    setup: (client: Client) =>
      client.setRequestHandler("elicitation/create", async () => {
        expect((await rta(["grant", "revoke", "--agent", "claude"], { env })).code).toBe(0);
        return { action: "accept" as const, content: {} };
      }),
  });
  try {
    expect((await rta(["grant", "allow", "fs.rm", "--agent", "claude", "--ttl", "5m"], { env })).code).toBe(0);
    const r = await s.client.callTool({ name: "fs_rm", arguments: { path: "old" } });
    expect(resultJson(r).code).toBe("core.grant.required");
    expect(resultJson(r).message).toContain("was revoked while a person was asked");
    expect(existsSync(join(root, "old"))).toBe(true);
  } finally {
    await s.close();
  }
}, 20_000);
