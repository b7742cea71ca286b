/**
 * End to end: `rta log tail --follow`, a person's option only. The last lines
 * come through log.tail, then each line appended is printed as it comes; a
 * file truncated under its name is followed from its start; Ctrl-C ends it
 * with 130, and a reader that goes away (`| head`) ends it quietly. An agent's
 * log_tail takes no follow.
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA } from "../support/rta.ts";

function follow(file: string, extra: string[] = []) {
  const proc = Bun.spawn([RTA, "log", "tail", file, "--lines", "1", "--follow", ...extra], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
  });
  const reader = proc.stdout.getReader();
  let out = "";
  let ended = false;
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    ended = true;
  })();
  /** What stdout has held so far, once it holds `text`. */
  const until = async (text: string): Promise<string> => {
    while (!out.includes(text)) {
      if (ended) throw new Error(`stdout ended before ${JSON.stringify(text)}: ${out}`);
      await Bun.sleep(10);
    }
    return out;
  };
  /** Appends lines to `file` until one comes out: from then on the follow is under way. */
  const underWay = async (): Promise<number> => {
    let i = 0;
    for (; !out.includes("keep ping"); i++) {
      appendFileSync(file, `keep ping ${i}\n`);
      await Bun.sleep(50);
    }
    return (await until(`keep ping ${i - 1}"}\n`)).length;
  };
  /** Plain lines appended until one comes out: from then on the follow is under way. */
  const underWayPlain = async (): Promise<void> => {
    for (let i = 0; !out.includes("sync "); i++) {
      appendFileSync(file, `sync ${i}\n`);
      await Bun.sleep(50);
    }
  };
  return { proc, until, underWay, underWayPlain };
}

describe("rta log tail --follow", () => {
  test("prints appended lines, filtered, follows a truncated file from its start, and ends with 130 on Ctrl-C", async () => {
    const file = join(tempDir(), "app.log");
    writeFileSync(file, "old one\nold two\n");
    const f = follow(file, ["--filter", "keep", "--json"]);
    await f.until('"total":0'); // neither of the last lines holds "keep"
    const start = await f.underWay();
    appendFileSync(file, "keep three\ndrop four\nkeep fi");
    appendFileSync(file, "ve\n");
    await f.until('{"text":"keep five"}\n');
    writeFileSync(file, "keep after truncation\n");
    const out = await f.until("keep after truncation");
    expect(out.slice(start).split("\n")).toEqual([
      '{"text":"keep three"}',
      '{"text":"keep five"}',
      '{"text":"keep after truncation"}',
      "",
    ]);
    f.proc.kill("SIGINT");
    expect(await f.proc.exited).toBe(130);
    const stderr = await new Response(f.proc.stderr).text();
    expect(stderr).toBe(`rta: ${JSON.stringify(file)} was replaced or truncated: following it from its start\n`);
  });

  test("piped, an appended line's terminal controls are escaped and its tabs kept, as log tail's own lines are", async () => {
    const file = join(tempDir(), "app.log");
    writeFileSync(file, "before\x1b[2J\tcell\n");
    const f = follow(file);
    await f.until("before");
    await f.underWayPlain();
    appendFileSync(file, "after\x1b]52;c;b3duZWQ=\x07\tcell\x9b2J\n");
    const out = await f.until("after");
    await f.until("cell\\x9b2J\n");
    f.proc.kill("SIGINT");
    await f.proc.exited;
    expect(out).toStartWith("before\\x1b[2J\tcell\n");
    expect(out).toEndWith("after\\x1b]52;c;b3duZWQ=\\x07\tcell\\x9b2J\n");
    expect(out).not.toContain("\x1b");
    expect(out).not.toContain("\x07");
  });

  test("--json writes an appended line's controls JSON leaves raw as escapes", async () => {
    const file = join(tempDir(), "app.log");
    writeFileSync(file, "first\n");
    const f = follow(file, ["--json"]);
    await f.until('"total"');
    await f.underWay();
    appendFileSync(file, "after\u2028x\x9by\n");
    const out = await f.until("after");
    await f.until('y"}\n');
    f.proc.kill("SIGINT");
    await f.proc.exited;
    expect(out).toEndWith('{"text":"after\\u2028x\\u009by"}\n');
  });

  test("ends quietly, exit 0, once whatever read its output has gone (| head)", async () => {
    const file = join(tempDir(), "app.log");
    writeFileSync(file, "first\n");
    const sh = Bun.spawn(
      ["bash", "-c", `"$0" log tail "$1" --follow | head -n 2; echo "rta: $${"{"}PIPESTATUS[0]}" >&2`, RTA, file],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: { PATH: process.env.PATH ?? "", HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
      },
    );
    // head takes the first line appended and leaves; rta learns it at the next line it writes
    let ended = false;
    sh.exited.then(() => {
      ended = true;
    });
    for (let i = 0; !ended; i++) {
      appendFileSync(file, `appended ${i}\n`);
      await Bun.sleep(50);
    }
    const lines = (await new Response(sh.stdout).text()).split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[1]).toStartWith("appended ");
    expect(await new Response(sh.stderr).text()).toBe("rta: 0\n");
  });

  test("a line appended with terminal controls is printed escaped, piped as log.tail prints it and in --json", async () => {
    // ESC (an OSC 52 clipboard write), CSI as one C1 character, a right-to-left override; the tab is the line's own
    const hostile = "a\u001b]52;c;aGk=\u0007b\u009b2J\u202ec\td";
    for (const json of [false, true]) {
      const file = join(tempDir(), "app.log");
      writeFileSync(file, "old\n");
      const f = follow(file, json ? ["--json"] : []);
      await f.until(json ? '"total":1' : "old\n");
      let i = 0;
      for (; !(await f.until("")).includes("keep ping"); i++) {
        appendFileSync(file, `keep ping ${i}\n`);
        await Bun.sleep(50);
      }
      appendFileSync(file, `${hostile}\nend\n`);
      const out = await f.until(json ? '{"text":"end"}' : "\nend\n");
      f.proc.kill("SIGINT");
      await f.proc.exited;
      for (const raw of ["\u001b", "\u0007", "\u009b", "\u202e"]) expect(out).not.toContain(raw);
      if (json) expect(out).toContain('{"text":"a\\u001b]52;c;aGk=\\u0007b\\u009b2J\\u202ec\\td"}\n');
      else expect(out).toContain("\na\\x1b]52;c;aGk=\\x07b\\x9b2J\\u202ec\td\nend\n");
    }
  });

  test("an agent's log_tail has no follow input: it answers once", async () => {
    const root = tempDir();
    writeFileSync(join(root, "a.log"), "x\n");
    const s = await connect("legacy", ["--root", root]);
    try {
      const { tools } = await s.client.listTools();
      const tail = tools.find((t) => t.name === "log_tail");
      expect(Object.keys(tail?.inputSchema.properties ?? {})).not.toContain("follow");
      const r = await s.client.callTool({ name: "log_tail", arguments: { path: "a.log", follow: true } });
      expect(resultJson(r).code).toBe("core.mcp.badargs");
    } finally {
      await s.close();
    }
  });
});
