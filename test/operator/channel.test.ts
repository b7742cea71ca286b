/**
 * The operator channel in process: its lines held to 64 KiB, a reader that
 * does not read never holding the server up (its events dropped past a
 * bound, and said), the run dir refused when it is not private, and a
 * request for a consent no one waits on answered so.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, symlinkSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { askOperator } from "../../src/operator/ask.ts";
import { OperatorChannel } from "../../src/operator/channel.ts";
import { OperatorClient } from "../../src/operator/client.ts";
import { QUEUE_BYTES } from "../../src/operator/connections.ts";
import { checkRunDir, ensureRunDir } from "../../src/operator/runDir.ts";
import { ServerState } from "../../src/operator/state.ts";
import { LineSplitter, MAX_LINE } from "../../src/operator/wire.ts";
import { refusalOf, tempDir, testDeps } from "../support/fixtures.ts";

async function openChannel(): Promise<{ channel: OperatorChannel; runDir: string; state: ServerState }> {
  const deps = testDeps();
  const state = new ServerState(
    { server: "0badcafe", pid: process.pid, transport: "stdio", started: new Date(0).toISOString() },
    deps,
    builtinCatalogue(),
  );
  const runDir = join(tempDir(), "run");
  const said: string[] = [];
  const channel = await OperatorChannel.open({ session: "0badcafe", runDir, say: (l) => said.push(l), state });
  if (!channel) throw new Error(said.join("\n"));
  return { channel, runDir, state };
}

describe("LineSplitter", () => {
  test("gives whole lines as they come, across chunks", () => {
    const s = new LineSplitter();
    expect(s.push(Buffer.from('{"a":1}\n{"b"'))).toEqual(['{"a":1}']);
    expect(s.push(Buffer.from(":2}\n"))).toEqual(['{"b":2}']);
  });

  test("refuses a line past 64 KiB, whether it ends or not", () => {
    expect(new LineSplitter().push(Buffer.alloc(MAX_LINE + 1, 0x61))).toBeUndefined();
    const s = new LineSplitter();
    expect(s.push(Buffer.alloc(MAX_LINE, 0x61))).toEqual([]);
    expect(s.push(Buffer.from("a\n"))).toBeUndefined();
  });
});

describe("the run dir", () => {
  test("is made 0700 and taken as it is", () => {
    const dir = join(tempDir(), "run");
    ensureRunDir(dir);
    expect(() => checkRunDir(dir)).not.toThrow();
  });

  test("is refused open to others, or a link", () => {
    const open = join(tempDir(), "run");
    mkdirSync(open);
    chmodSync(open, 0o750);
    expect(refusalOf(() => ensureRunDir(open)).code).toBe("core.operator.unsafe");
    const link = join(tempDir(), "run");
    const real = join(tempDir(), "real");
    mkdirSync(real, { mode: 0o700 });
    symlinkSync(real, link);
    expect(refusalOf(() => checkRunDir(link)).message).toContain("is a link");
  });
});

describe("a server's channel", () => {
  test("ends a connection that sends a line past 64 KiB, and answers the others", async () => {
    const { channel } = await openChannel();
    try {
      const ended = await new Promise<string>((resolve) => {
        const s = connect(channel.path);
        let got = "";
        s.on("data", (d) => {
          got += d;
        });
        s.on("close", () => resolve(got));
        s.on("error", () => {});
        s.write(Buffer.alloc(MAX_LINE + 10, 0x61));
      });
      // told the hello, then cut: no reply to a line it did not take
      expect(ended.trim().split("\n")).toHaveLength(1);
      const client = await OperatorClient.open(join(channel.path, ".."));
      const [reply] = await client.request({ op: "approve", id: "feedface" });
      expect(reply).toMatchObject({ ok: false, error: { code: "core.operator.unknown" } });
      client.close();
    } finally {
      channel.close();
    }
  });

  test("drops the events of a reader that does not read, never waits on it, and says how many", async () => {
    const { channel, state } = await openChannel();
    try {
      const s = connect(channel.path);
      s.pause();
      await new Promise((resolve) => s.once("connect", resolve));
      // wait for the server to have taken the connection (its hello is queued for the paused reader)
      for (let i = 0; i < 100 && !state.watched(); i++) await Bun.sleep(10);
      expect(state.watched()).toBe(true);
      const big = "x".repeat(16 * 1024);
      const count = Math.ceil((QUEUE_BYTES * 4) / big.length);
      for (let i = 0; i < count; i++) state.sessionStarted(`s${i}`, big);
      // the broadcasts returned at once; now read everything: the drop is said
      const lines: Record<string, unknown>[] = [];
      let carry = "";
      const dropped = await new Promise<Record<string, unknown>>((resolve) => {
        s.on("data", (d) => {
          carry += d;
          const parts = carry.split("\n");
          carry = parts.pop() ?? "";
          for (const p of parts) {
            const e = JSON.parse(p);
            lines.push(e);
            if (e.event === "dropped") resolve(e);
          }
        });
        s.resume();
      });
      const sessions = lines.filter((e) => e.event === "session_started").length;
      expect(sessions).toBeLessThan(count);
      expect(dropped.count).toBe(count - sessions);
      s.destroy();
    } finally {
      channel.close();
    }
  });
});

describe("askOperator", () => {
  test("waits until a person approves through the channel, with the choice they made", async () => {
    const runDir = join(tempDir(), "run");
    const deps = testDeps();
    let pendingId = "";
    const answer = askOperator({
      runDir,
      deps,
      catalogue: builtinCatalogue(),
      prompt: {
        capability: "fs.write",
        tool: "fs_write",
        agent: "claude",
        description: "grant fs.write to claude",
        args: {},
        message: "claude asks for a grant of fs.write",
        timeoutMs: 60_000,
        kind: "grant",
        choices: ["once", "30 min"],
      },
      signal: new AbortController().signal,
      onPending: (id) => {
        pendingId = id;
      },
    });
    for (let i = 0; i < 200 && pendingId === ""; i++) await Bun.sleep(5);
    const client = await OperatorClient.open(runDir);
    const replies = await client.request({ op: "approve", id: pendingId, choice: "30 min" });
    expect(replies).toMatchObject([{ ok: true }]);
    expect(await answer).toEqual({ chosen: "30 min" });
    client.close();
  });
});
