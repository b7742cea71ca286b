/**
 * End to end: another process holding gate.db's write lock does not freeze a
 * server. A stdio server is its client's child, and a client can stop it
 * (SIGSTOP) while it holds the lock to write a line; every server sharing the
 * data dir then waited the store's 5 s for each of a call's two lines, with
 * nothing else answered meanwhile: 10 s a call, a ping behind three calls
 * answered after 30 s. Calls are still refused while the lock is held (a call
 * runs only once its line is written), but once a line has waited for it in
 * vain, at once; and they run again as soon as it is let go.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

/** The lock holders a test started: ended after each test, whatever it ended with, so none outlives a failure. */
const holders: { release: () => Promise<void> }[] = [];
afterEach(async () => {
  for (const h of holders.splice(0)) await h.release();
});

/** Holds the store's write lock until killed, as a stopped server would; resolves once it is held. */
async function holdLock(db: string): Promise<{ pid: number; release: () => Promise<void> }> {
  const script = `
    const { Database } = require("bun:sqlite");
    const db = new Database(${JSON.stringify(db)});
    db.exec("BEGIN IMMEDIATE");
    console.log("held");
    setInterval(() => {}, 1000);
  `;
  const holder = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = holder.stdout.getReader();
  const { value } = await reader.read();
  expect(new TextDecoder().decode(value)).toContain("held");
  const held = {
    pid: holder.pid,
    release: async () => {
      holder.kill("SIGKILL");
      await holder.exited;
    },
  };
  holders.push(held);
  return held;
}

test("calls meeting a held store lock are refused without freezing the server, and run once it is let go", async () => {
  const data = tempDir();
  const s = await connect("legacy", ["--agent", "claude"], { dataDir: data });
  try {
    expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    expect((await rta(["grant", "allow", "note.add", "--agent", "claude", "--ttl", "10m"], { env })).code).toBe(0);
    const lock = await holdLock(join(data, "gate.db"));
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => s.client.callTool({ name: "sys_info", arguments: {} })),
    );
    // a call that spends a grant's use waited the store's 5 s too, each one, and was core.internal
    const spending = await Promise.all(
      Array.from({ length: 8 }, () => s.client.callTool({ name: "note_add", arguments: { title: "t", body: "b" } })),
    );
    await s.client.ping();
    const waited = performance.now() - started;
    for (const a of answers) expect(resultJson(a).code).toBe("core.record.unavailable");
    for (const a of spending) expect(resultJson(a).code).toBe("core.store.unavailable");
    // Twenty calls took 200 s before (5 s a line, two lines a call), eight spending a use 40 s more; now the
    // first wait is 5 s and the others 50 ms each. The bound is loose on purpose: it tells seconds from minutes.
    expect(waited).toBeLessThan(30_000);
    expect(s.stderr().match(/the record cannot be written/g)).toHaveLength(1);
    // the operator is told which process holds it
    expect(s.stderr()).toContain(`the grant store is held locked by process ${lock.pid}`);
    await lock.release();
    expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
  } finally {
    await s.close();
  }
}, 120_000);

test("the operator's lock, against a store another process holds, names that process and whether it is stopped", async () => {
  const data = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
  expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
  const lock = await holdLock(join(data, "gate.db"));
  try {
    process.kill(lock.pid, "SIGSTOP");
    const r = await rta(["lock", "--agent", "claude"], { env });
    expect(r.code).not.toBe(0);
    // it was core.internal, "the lock could not be set", naming nothing
    expect(r.stderr).toContain(
      `the grant store is held locked by process ${lock.pid} (stopped) (core.store.unavailable)`,
    );
    expect(r.stderr).toContain(`resume it (kill -CONT ${lock.pid}) or end it (kill ${lock.pid})`);
    // and rta doctor, where an operator looks first, names it too: it said the store was fine
    const doctor = await rta(["doctor", "--json"], { env });
    const findings = (JSON.parse(doctor.stdout) as { findings: { check: string; status: string; detail: string }[] })
      .findings;
    expect(findings.find((f) => f.check === "grant store")).toMatchObject({
      status: "fail",
      detail: expect.stringContaining(`held locked by stopped process ${lock.pid}`),
    });
  } finally {
    process.kill(lock.pid, "SIGCONT");
    await lock.release();
  }
  expect((await rta(["lock", "--agent", "claude"], { env })).code).toBe(0);
}, 60_000);
