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
import { expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";

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
  return {
    pid: holder.pid,
    release: async () => {
      holder.kill("SIGKILL");
      await holder.exited;
    },
  };
}

test("calls meeting a held store lock are refused without freezing the server, and run once it is let go", async () => {
  const data = tempDir();
  const s = await connect("legacy", ["--agent", "claude"], { dataDir: data });
  try {
    expect(resultJson(await s.client.callTool({ name: "sys_info", arguments: {} })).type).toBe("object");
    const lock = await holdLock(join(data, "gate.db"));
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => s.client.callTool({ name: "sys_info", arguments: {} })),
    );
    await s.client.ping();
    const waited = performance.now() - started;
    for (const a of answers) expect(resultJson(a).code).toBe("core.record.unavailable");
    // Twenty calls took 200 s before (5 s a line, two lines a call); now the first line waits 5 s and the
    // others 50 ms each. The bound is loose on purpose: it only tells seconds from minutes.
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
