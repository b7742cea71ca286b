/**
 * What a capability's result looks like from the built binary, piped and on a
 * terminal (issue 14, items 1 and 7): plain when piped, JSON only with
 * --json, notes on stderr, colour only where it is asked for, and `| head`
 * ending rta quietly.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir, whileRunning } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { useNotePlugin } from "../support/plugins.ts";
import { noStack, RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

/** Runs a shell line with $RTA set, and returns what it printed and its status. */
async function sh(line: string, env: Record<string, string> = {}) {
  const proc = Bun.spawn(["bash", "-c", line], {
    stdout: "pipe",
    stderr: "pipe",
    env: {
      PATH: process.env.PATH ?? "",
      HOME: tempDir(),
      RTA_DATA_DIR: tempDir(),
      RTA_CONFIG_DIR: tempDir(),
      RTA,
      ...env,
    },
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

/** CRLF, a tab, an escape sequence, a non-ASCII letter, and no newline at the end. */
const MIXED = "first\r\nsecond\tcolumn\n\x1b[31mred\x1b[0m and caf\u00e9\nlast line, no newline";

describe("fs read, piped", () => {
  test("> copy holds the file's own bytes, and nothing is said", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "mixed.txt"), MIXED);
    const r = await sh(`cd "${dir}" && "$RTA" fs read mixed.txt > copy`);
    expect(r).toEqual({ stdout: "", stderr: "", code: 0 });
    expect(readFileSync(join(dir, "copy")).equals(readFileSync(join(dir, "mixed.txt")))).toBe(true);
  });

  test("| head gets the first lines, and rta ends quietly with status 0, as ripgrep does", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "big.txt"), Array.from({ length: 200_000 }, (_, i) => `${i + 1}\n`).join(""));
    const r = await sh(`set -o pipefail; "$RTA" fs read "${dir}/big.txt" 2>"${dir}/err" | head -n 2; echo "status $?"`);
    expect(r.stdout).toBe("1\n2\nstatus 0\n");
    expect(readFileSync(join(dir, "err"), "utf8")).toBe("");
    // --json too, and a table
    const json = await sh(`set -o pipefail; "$RTA" fs read "${dir}/big.txt" --json 2>&1 | head -c 10; echo " $?"`);
    expect(json.stdout).toBe(`{"type":"t 0\n`);
  });

  test("a file past one read's length: what was read, a note with the flag to read on, and status 5", async () => {
    const dir = tempDir();
    const body = "x".repeat(1024 * 1024 + 10);
    writeFileSync(join(dir, "long.txt"), body);
    const first = await rta(["fs", "read", join(dir, "long.txt")]);
    expect(first.code).toBe(5);
    expect(first.stdout).toBe(body.slice(0, 1024 * 1024));
    expect(first.stderr).toBe("rta: note: 10 more bytes: read on with --offset 1048576\n");
    const rest = await rta(["fs", "read", join(dir, "long.txt"), "--offset", "1048576"]);
    expect(rest).toEqual({ code: 0, stdout: "x".repeat(10), stderr: "" });
    // a length the person chose is head -c: no failure
    const head = await rta(["fs", "read", join(dir, "long.txt"), "--length", "4"]);
    expect(head).toEqual({
      code: 0,
      stdout: "xxxx",
      stderr: "rta: note: 1048582 more bytes: read on with --offset 4\n",
    });
  });

  test("lines asked for are the lines alone; how to read on is said on stderr in CLI spelling", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f.txt"), "one\ntwo\nthree\nfour\n");
    const r = await rta(["fs", "read", join(dir, "f.txt"), "--from-line", "2", "--lines", "2"]);
    expect(r).toEqual({
      code: 0,
      stdout: "two\nthree\n",
      stderr: "rta: note: more lines follow: read on with --from-line 4\n",
    });
    const json = JSON.parse(
      (await rta(["fs", "read", join(dir, "f.txt"), "--from-line", "2", "--lines", "2", "--json"])).stdout,
    );
    expect(json).toEqual({ type: "text", text: "two\nthree\n", note: "more lines follow: read on with --from-line 4" });
    const all = await rta(["fs", "read", join(dir, "f.txt"), "--from-line", "1"]);
    expect(all).toEqual({ code: 0, stdout: "one\ntwo\nthree\nfour\n", stderr: "" });
    writeFileSync(join(dir, "open.txt"), "one\ntwo");
    expect((await rta(["fs", "read", join(dir, "open.txt"), "--from-line", "2"])).stdout).toBe("two");
  });

  test("a refusal's hint names what to run as a person types it, not as a capability's name", async () => {
    const missing = await rta(["note", "show", "no-such-note"]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("rta: hint: rta note list shows the notes there are\n");
    const dir = tempDir();
    writeFileSync(join(dir, "b.bin"), "a\0b");
    const binary = await rta(["fs", "read", join(dir, "b.bin")]);
    expect(binary.stderr).toContain("rta: hint: rta fs stat and rta fs hash describe it without reading it as text\n");
    expect((await rta(["fs", "read", join(dir, "gone.txt")])).stderr).toContain(
      "rta: hint: rta fs list shows what is there\n",
    );
  });

  test("a file that is not UTF-8 is not passed off as its bytes: a note and status 1", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const r = await rta(["fs", "read", join(dir, "latin1.txt")]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("caf\ufffd\n");
    expect(r.stderr).toBe(
      "rta: note: some bytes are not UTF-8 and were printed as U+FFFD, so this is not the file's own bytes\n",
    );
    // by lines, only the lines printed count, and U+FFFD written in the file is a character like any other
    writeFileSync(join(dir, "mixed.txt"), Buffer.concat([Buffer.from("fine \ufffd\n"), Buffer.from([0xe9, 0x0a])]));
    const clean = await rta(["fs", "read", join(dir, "mixed.txt"), "--from-line", "1", "--lines", "1"]);
    expect(clean).toEqual({
      code: 0,
      stdout: "fine \ufffd\n",
      stderr: "rta: note: more lines follow: read on with --from-line 2\n",
    });
    expect((await rta(["fs", "read", join(dir, "mixed.txt"), "--from-line", "2"])).code).toBe(1);
    // a character split between two of the chunks a line range is read in is whole, and no note
    writeFileSync(join(dir, "split.txt"), `${"a".repeat(64 * 1024 - 1)}\u00e9\nend\n`);
    const split = await rta(["fs", "read", join(dir, "split.txt"), "--from-line", "1"]);
    expect(split).toEqual({ code: 0, stdout: `${"a".repeat(64 * 1024 - 1)}\u00e9\nend\n`, stderr: "" });
  });

  test("an agent is sent the text and its note as one text, as before", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "f.txt"), "one\ntwo\nthree\n");
    const s = await connect("modern", ["--root", dir]);
    try {
      const r = await s.client.callTool({ name: "fs_read", arguments: { path: "f.txt", from_line: 1, lines: 1 } });
      expect(resultJson(r)).toEqual({ type: "text", text: "one\n[more lines follow: read on with from_line=2]" });
    } finally {
      await s.close();
    }
  });
});

describe("tables, piped", () => {
  test("proc list | grep finds one process as one tab-separated row", async () => {
    await whileRunning(["rta-output-mark"], async (pid) => {
      const r = await sh(`"$RTA" proc list --sort pid --limit 1000 | grep -E 'holder rta-output-mar[k]'`);
      expect(r.code).toBe(0);
      const lines = r.stdout.split("\n").filter((l) => l !== "");
      expect(lines).toHaveLength(1);
      const fields = (lines[0] as string).split("\t");
      expect(fields).toHaveLength(5);
      expect(fields[0]).toBe(String(pid));
      expect(fields[4]).toBe("bash -c sleep 60; true holder rta-output-mark");
    });
  });

  test("--json is one line piped, rows keyed by column as jq reads them, pretty on a terminal", async () => {
    const r = await rta(["proc", "list", "--sort", "pid", "--limit", "2", "--json"]);
    expect(r.code).toBe(0);
    expect(r.stdout.indexOf("\n")).toBe(r.stdout.length - 1);
    const t = JSON.parse(r.stdout);
    expect(t.type).toBe("table");
    expect(t.columns).toEqual(["pid", "user", "cpu", "mem", "command"]);
    expect(t.rows[0].pid).toBe(1);
    expect(t.rows).toHaveLength(2);
    expect(t.total).toBeGreaterThanOrEqual(2);
    expect(r.stderr).toBe("");
    const tty = await onTerminal(["proc", "list", "--sort", "pid", "--limit", "1", "--json"], {});
    expect(tty.out).toContain('\n  "columns": [\n');
    expect(JSON.parse(tty.out).rows[0].pid).toBe(1);
  });

  test("a name with a tab, a newline or an escape in fs list cannot forge a row or a column, or act on a terminal", async () => {
    const dir = tempDir();
    for (const name of ["a\tb", "new\nline", "esc\x1b]0;title\x07", "plain"]) writeFileSync(join(dir, name), "");
    const r = await rta(["fs", "list", dir]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n").slice(0, -1);
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => l.split("\t").length)).toEqual([5, 5, 5, 5]);
    expect(lines.map((l) => l.split("\t")[0])).toEqual(["a\\tb", "esc\\x1b]0;title\\x07", "new\\nline", "plain"]);
    expect(r.stdout).not.toContain("\x1b");
    // no header, no units: a size is its bytes
    writeFileSync(join(dir, "plain"), "x".repeat(2048));
    expect((await rta(["fs", "list", dir])).stdout).toContain("plain\tfile\t2048\t");
  });

  test("an object is key<TAB>value lines, nested keys dotted", async () => {
    const r = await rta(["sys", "info"]);
    expect(r.code).toBe(0);
    const keys = r.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => l.split("\t")[0]);
    expect(keys).toContain("hostname");
    expect(keys).toContain("memory.total");
    const total = r.stdout.split("\n").find((l) => l.startsWith("memory.total\t"));
    expect(total).toMatch(/^memory\.total\t\d+$/);
  });
});

describe("refusals on stderr", () => {
  test("a refusal or a usage error echoing a name with controls says them escaped, on stderr and in --json", async () => {
    // C1 CSI and a bidi override pass JSON.stringify raw; ESC and BEL are what a command line echoes as typed
    const cwd = tempDir();
    const gone = await sh(`cd ${cwd} && "$RTA" fs read $'no\\xc2\\x9b2J\\xe2\\x80\\xaeh' --json`);
    const typo = await sh(`"$RTA" $'gr\\x1b]52;c;aGk=\\x07ant'; "$RTA" grant $'--ag\\x1b[2Jent' x`);
    expect(gone.stderr).toContain("no\\x9b2J\\u202eh");
    expect(gone.stdout).toContain("no\\u009b2J\\u202eh");
    expect(typo.stderr).toContain("unknown command 'gr\\x1b]52;c;aGk=\\x07ant'");
    expect(typo.stderr).toContain("unknown option '--ag\\x1b[2Jent'");
    for (const raw of ["\u001b", "\u0007", "\u009b", "\u202e"]) {
      expect(gone.stderr + gone.stdout + typo.stderr).not.toContain(raw);
    }
  });
});

describe("colour", () => {
  const colours = (text: string) => text.includes("\x1b[");
  /** a colour code: ESC [ ... m */
  const SGR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

  test("a terminal gets colour; NO_COLOR, TERM=dumb and --color never take it away; --color always and FORCE_COLOR bring it back", async () => {
    const xterm = { TERM: "xterm", NO_COLOR: "" };
    expect(colours((await onTerminal(["sys", "info"], xterm)).out)).toBe(true);
    expect(colours((await onTerminal(["sys", "info"], { TERM: "xterm", NO_COLOR: "1" })).out)).toBe(false);
    expect(colours((await onTerminal(["sys", "info"], { TERM: "dumb", NO_COLOR: "" })).out)).toBe(false);
    expect(colours((await onTerminal(["sys", "info", "--color", "never"], xterm)).out)).toBe(false);
    expect(colours((await onTerminal(["--color=never", "sys", "info"], xterm)).out)).toBe(false);
    expect(colours((await onTerminal(["sys", "info", "--color", "always"], { TERM: "dumb", NO_COLOR: "1" })).out)).toBe(
      true,
    );
    expect(colours((await onTerminal(["sys", "info"], { TERM: "dumb", NO_COLOR: "", FORCE_COLOR: "1" })).out)).toBe(
      true,
    );
  });

  test("no escape code is left on a blank last line, and none reaches a pipe", async () => {
    const tty = await onTerminal(["proc", "list", "--limit", "1"], { TERM: "xterm", NO_COLOR: "" });
    expect(tty.out).toContain("\x1b[1m");
    for (const line of tty.out.split("\n")) expect(line.replace(SGR, "").trim() === "" && line !== "").toBe(false);
    const piped = await rta(["proc", "list", "--limit", "1"], { env: { TERM: "xterm", FORCE_COLOR: "1" } });
    expect(colours(piped.stdout + piped.stderr)).toBe(false);
  });

  test("--color takes auto, always or never, and says so otherwise", async () => {
    const r = await rta(["sys", "info", "--color", "sometimes"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain('--color takes auto, always or never, not "sometimes" (core.cli.usage)');
    // the hint promises only what --color always does: piped output stays plain
    expect(r.stderr).toContain("`--color always` to keep it on a terminal despite NO_COLOR or TERM=dumb\n");
    expect(r.stderr).not.toContain("in a pipe");
    expect((await rta(["sys", "info", "--color", "always"])).stdout).not.toContain("\x1b[");
    expect(noStack(r.stderr)).toBe(true);
  });
});

const OUTPUT_FAILED =
  "rta: error: the output could not be written (ENOSPC) (core.output.failed)\nrta: hint: write it somewhere with room\n";

describe("a stream that takes no more", () => {
  test("a closed stderr, and a full disk behind stdout, end rta without a stack", async () => {
    const closed = await sh(`"$RTA" fs read "${tempDir()}/missing" 2>&-; echo "status $?"`);
    expect(closed.stdout).toBe("status 4\n");
    const full = await sh(`"$RTA" sys info > /dev/full; echo "status $?"`);
    expect(full.stdout).toBe("status 1\n");
    expect(full.stderr).toContain("(core.output.failed)");
    expect(noStack(full.stderr)).toBe(true);
  });

  test("a grant, a lock or a token written to a full disk is said as the output's failure, not as rta's own", async () => {
    // each is made before it is printed: saying it "could not be issued" would send the person to issue it again
    const env = { RTA_DATA_DIR: tempDir() };
    for (const line of [
      `"$RTA" grant allow fs.write --agent x --ttl 5m --yes > /dev/full`,
      `"$RTA" lock --agent x > /dev/full`,
      `"$RTA" mcp token new --agent x > /dev/full`,
    ]) {
      const full = await sh(`${line}; echo "status $?"`, env);
      // what a grant covers is said on stderr before it is issued; the failure is the last thing said
      expect({ line, out: full.stdout, end: full.stderr.endsWith(OUTPUT_FAILED) }).toEqual({
        line,
        out: "status 1\n",
        end: true,
      });
      expect(full.stderr).not.toContain("core.internal");
    }
    const listed = await sh(`"$RTA" grant list; "$RTA" lock list`, env);
    expect(listed.stdout).toContain("fs.write\tx");
    expect(listed.stdout).toContain("\tx\t");
  });
});
