/**
 * End to end, the built binary: policy.toml's grant_from = "terminal" refusing a
 * grant from a process with no terminal (an agent's shell tool: a pipe, its own
 * session) and taking one typed on a pseudo-terminal under `script -qc`, its
 * stdin a pipe saying no; grant_from = "operator" holding a grant, a lock
 * lift and a token until `rta operator` approves or denies them; and the split-user recipe of
 * docs/agents-with-a-shell.md, run with setpriv: the agent's user cannot write
 * the grant store of the user the server runs as.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { watchOperator } from "../support/operatorStream.ts";
import { prepareDataDir, RTA, rta } from "../support/rta.ts";

const AS_AGENT = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"];
const ALLOW = ["grant", "allow", "fs.write", "--agent", "claude", "--ttl", "5m"];

function strictPolicy() {
  const data = tempDir();
  const config = tempDir();
  writeFileSync(join(config, "policy.toml"), 'grant_from = "terminal"\n');
  return { data, config, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: tempDir(), NO_COLOR: "1" } };
}

/** Runs the binary in a session of its own, as an agent's shell tool does: no controlling terminal, stdin a pipe. */
async function noTerminal(args: string[], env: Record<string, string>, stdin: string) {
  await prepareDataDir(env.RTA_DATA_DIR);
  const proc = Bun.spawn(["setsid", "-w", RTA, ...args], {
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", ...env },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

/** Runs `sh -c line` on a pseudo-terminal (util-linux `script`), with `typed` typed at it; the screen, CRLF as LF. */
async function underScript(line: string, env: Record<string, string>, typed: string) {
  await prepareDataDir(env.RTA_DATA_DIR);
  const proc = Bun.spawn(["script", "-qec", line, "/dev/null"], {
    stdin: new Blob([typed]),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", TERM: "dumb", ...env },
  });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  return { code, screen: out.replaceAll("\r\n", "\n") };
}

describe('grant_from = "terminal", the built binary', () => {
  test("a grant asked for through a pipe with no terminal is refused, and nothing is issued", async () => {
    const { env } = strictPolicy();
    const r = await noTerminal(ALLOW, env, "yes\n");
    expect(r.code).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "rta: error: the team policy takes this only from a person at an interactive terminal, and this process has none (core.grant.noterminal)\n" +
        "rta: hint: a person must run it, in a terminal of their own; an agent cannot do it for itself\n",
    );
    // a lock to lift: with none, that is said first, and nobody is asked
    expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
    for (const args of [
      ["lock", "lift", "--all"],
      ["mcp", "token", "new", "--agent", "claude"],
      [...ALLOW, "--yes"],
    ])
      expect((await noTerminal(args, env, "y\n")).stderr).toContain("(core.grant.noterminal)");
    expect((await rta(["grant", "list", "--json"], { env })).stdout).toContain('"total":0');
  });

  test("under script -qc, yes typed on the terminal issues it, though stdin is a pipe saying no", async () => {
    const { env } = strictPolicy();
    const quoted = [RTA, ...ALLOW].map((w) => `'${w}'`).join(" ");
    const { code, screen } = await underScript(`echo no | ${quoted}`, env, "yes\n");
    expect(code).toBe(0);
    expect(screen).toContain("a grant of fs.write for agent claude would cover:\n  fs.write  write\n");
    expect(screen).toContain("issue it? type yes on this terminal [y/N] ");
    expect(screen).toMatch(/granted g[0-9a-f]{8}: fs\.write for agent claude, until /);
    const no = await underScript(quoted, env, "n\n");
    expect(no.code).toBe(3);
    expect(no.screen).toContain("(core.grant.declined)");
    expect(JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout).total).toBe(1);
  });

  test("a consent asked at rta operator is approved only from a terminal too", { timeout: 30_000 }, async () => {
    const { env, config, data } = strictPolicy();
    const root = tempDir();
    writeFileSync(
      join(config, "policy.toml"),
      'grant_from = "terminal"\nconfirm = ["fs.stat"]\nconsent = "operator"\n',
    );
    const s = await connect("legacy", ["--agent", "claude", "--root", root], { dataDir: data, env });
    const op = await watchOperator(env);
    try {
      const call = s.client.callTool({ name: "fs_stat", arguments: { path: root } });
      const pending = await op.next((e) => e.event === "consent_pending");
      // the agent's shell tool, with no terminal, cannot approve what its own call waits on
      const self = await noTerminal(["operator", "approve", String(pending.id)], env, "y\n");
      expect(self.stderr).toContain("(core.grant.noterminal)");
      const approved = await underScript(`'${RTA}' operator approve ${pending.id}`, env, "y\n");
      expect(approved.code).toBe(0);
      expect(resultJson(await call).type).toBe("object");
    } finally {
      await s.close();
      await op.stop();
    }
  });
});

/** Starts `rta args` as an agent's shell tool would, and resolves with the id it asks `rta operator` to approve. */
async function waitingForOperator(args: string[], env: Record<string, string>) {
  await prepareDataDir(env.RTA_DATA_DIR);
  const proc = Bun.spawn(["setsid", "-w", RTA, ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", ...env },
  });
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  let said = "";
  let id: string | undefined;
  while (id === undefined) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`it asked nobody: ${said}`);
    said += new TextDecoder().decode(value);
    id = /`rta operator approve ([0-9a-f]+)`/.exec(said)?.[1];
  }
  const rest = async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return said;
      said += new TextDecoder().decode(value);
    }
  };
  const ended = Promise.all([new Response(proc.stdout).text(), rest(), proc.exited]).then(([stdout, stderr, code]) => ({
    code,
    stdout,
    stderr,
  }));
  return { id, ended };
}

describe('grant_from = "operator", the built binary', () => {
  test("a grant from a shell waits until rta operator approves it; a denied lock lift lifts nothing", async () => {
    const data = tempDir();
    const config = tempDir();
    writeFileSync(join(config, "policy.toml"), 'grant_from = "operator"\n');
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: tempDir(), NO_COLOR: "1" };
    const grant = await waitingForOperator(ALLOW, env);
    // seen by a person watching, with what it would cover
    const watcher = Bun.spawn([RTA, "operator"], { stdin: "ignore", stdout: "pipe", stderr: "ignore", env });
    const events = (watcher.stdout as ReadableStream<Uint8Array>).getReader();
    let stream = "";
    // read to the end of the line that names it
    while (!stream.includes(grant.id) || !stream.slice(stream.indexOf(grant.id)).includes("\n")) {
      const { value, done } = await events.read();
      if (done) break;
      stream += new TextDecoder().decode(value);
    }
    watcher.kill();
    await watcher.exited;
    const hello = stream
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l))
      .find((e) => e.event === "server");
    expect(hello).toMatchObject({ transport: "cli" });
    expect(hello.pending[0]).toMatchObject({
      id: grant.id,
      kind: "grant",
      tool: "rta grant allow",
      capability: "fs.write",
    });
    expect(hello.pending[0].message).toContain("a grant of fs.write for agent claude would cover:");
    expect((await rta(["grant", "list", "--json"], { env })).stdout).toContain('"total":0');
    // an approval is a person's, typed on a terminal: an agent's shell tool (no terminal) cannot approve its own ask
    const selfApproved = await noTerminal(["operator", "approve", grant.id], env, "y\n");
    expect(selfApproved.stderr).toContain("(core.grant.noterminal)");
    const approved = await underScript(`'${RTA}' operator approve ${grant.id}`, env, "yes\n");
    expect(approved.screen).toContain(`approve the pending request ${grant.id}\napprove it? type yes on this terminal`);
    expect(approved.code).toBe(0);
    const issued = await grant.ended;
    expect(issued.code).toBe(0);
    expect(issued.stdout).toMatch(/^g[0-9a-f]{8}\n$/);
    expect(issued.stderr).toContain("waiting for a person to approve it in `rta operator`");

    expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
    const lift = await waitingForOperator(["lock", "lift", "--agent", "claude"], env);
    expect((await rta(["operator", "deny", lift.id], { env })).code).toBe(0);
    const denied = await lift.ended;
    expect(denied.code).toBe(3);
    expect(denied.stderr).toContain(
      "rta: error: a person denied it in `rta operator`, so nothing was done (core.grant.declined)",
    );
    expect((await rta(["lock", "list", "--json"], { env })).stdout).toContain('"state":"active"');

    const token = await waitingForOperator(["mcp", "token", "new", "--agent", "claude"], env);
    expect((await underScript(`'${RTA}' operator approve ${token.id}`, env, "y\n")).code).toBe(0);
    expect((await token.ended).stdout).toMatch(/^\S{20,}\n$/);
  });
});

describe("the split-user recipe: the agent runs as another user than the one owning rta's data dir", () => {
  test("the agent's user can neither write nor read the operator's grant store; the operator's grant stands", async () => {
    // user A (the test's own) owns the data dir the server uses; the agent's client runs as nobody
    const data = tempDir();
    const config = tempDir();
    chmodSync(config, 0o755);
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: tempDir() };
    const issued = await rta(ALLOW, { env });
    expect(issued.code).toBe(0);
    expect(existsSync(join(data, "gate.db"))).toBe(true);

    const agentHome = tempDir();
    chmodSync(agentHome, 0o777);
    const asAgent = async (argv: string[]) => {
      const proc = Bun.spawn([...AS_AGENT, ...argv], {
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "", HOME: agentHome, RTA_DATA_DIR: data, RTA_CONFIG_DIR: config },
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      return { code, stdout, stderr };
    };
    // the self-grant an agent's shell tool would try, aimed at the server's store
    const self = await asAgent([RTA, ...ALLOW]);
    expect(self.code).not.toBe(0);
    expect(self.stderr).toContain("(core.store.unavailable)");
    const lift = await asAgent([RTA, "lock", "lift", "--all"]);
    expect(lift.code).not.toBe(0);
    // nor around rta: the store is the operator's file, in the operator's 0700 dir
    expect((await asAgent(["sh", "-c", `echo x >> '${join(data, "gate.db")}'`])).code).not.toBe(0);
    expect((await asAgent(["cat", join(data, "gate.db")])).code).not.toBe(0);
    // a grant it issues into a store of its own is one no server of the operator's reads
    const own = tempDir();
    chmodSync(own, 0o777);
    const elsewhere = await asAgent(["env", `RTA_DATA_DIR=${join(own, "rta")}`, RTA, ...ALLOW]);
    expect(elsewhere.code).toBe(0);
    const listed = JSON.parse((await rta(["grant", "list", "--json"], { env })).stdout);
    expect(listed.total).toBe(1);
    expect(listed.grants[0].id).toBe(issued.stdout.trim());
  });
});
