/**
 * End to end: the person's kv and keys verbs on the built binary. kv copy
 * hands the value to a fake clipboard tool on PATH (never the real
 * clipboard) and a detached rta clears it; kv edit runs an $EDITOR script on
 * a private temp file; keys export and import round-trip age-keygen's
 * output. None of them is a tool: tools/list leaves them out and a call
 * naming one is answered as an unknown tool.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProtocolError } from "@modelcontextprotocol/client";
import { tempDir } from "../support/fixtures.ts";
import { connect, type Era } from "../support/mcpClient.ts";
import { noStack, RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

const VALUE = "s3cr3t-v4lue";

/** A data and config dir with an identity (age-keygen's) and a store holding deploy-key, written by the age CLI. */
function storeDirs() {
  const data = tempDir();
  const config = tempDir();
  const identity = join(config, "identity.txt");
  Bun.spawnSync(["age-keygen", "-o", identity]);
  const recipient = Bun.spawnSync(["age-keygen", "-y", identity]).stdout.toString().trim();
  const plain = join(tempDir(), "plain.txt");
  writeFileSync(
    plain,
    `# rta kv 1\n{"name":"db/pass","value":"hunter2","modified":"2026-11-01T10:00:00.000Z"}\n{"name":"deploy-key","value":"${VALUE}","comment":"ci","modified":"2026-12-01T14:00:00.000Z"}\n`,
  );
  Bun.spawnSync(["age", "-r", recipient, "-o", join(data, "kv.age"), plain]);
  return { data, config, identity, env: { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config } };
}

function plaintext(p: { identity: string; data: string }): string {
  return Bun.spawnSync(["age", "-d", "-i", p.identity, join(p.data, "kv.age")]).stdout.toString();
}

/**
 * A bin dir with fake clipboard tools: each copy appends `<tool> <args>\t<stdin>` to the log and keeps stdin as
 * what the clipboard holds; a paste prints it. They record what they were given and touch no real clipboard.
 */
function fakeClipboard(): { bin: string; log: string; holds: string } {
  const bin = tempDir();
  const log = join(bin, "clip.log");
  const holds = join(bin, "clip.now");
  const copy = `#!/bin/sh\ncase " $* " in *" -o "*) cat "${holds}" || exit 1; exit 0;; esac\ncat > "${holds}.new"; mv "${holds}.new" "${holds}"\nprintf '%s %s\\t' "$(basename "$0")" "$*" >> "${log}"; cat "${holds}" >> "${log}"; echo >> "${log}"\n`;
  for (const tool of ["xclip", "wl-copy"]) {
    writeFileSync(join(bin, tool), copy);
    chmodSync(join(bin, tool), 0o755);
  }
  writeFileSync(join(bin, "wl-paste"), `#!/bin/sh\ncat "${holds}"\n`);
  chmodSync(join(bin, "wl-paste"), 0o755);
  return { bin, log, holds };
}

/** Waits until no rta clearer started with this log in its environment is left running. */
async function clearerDone(log: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const running = readdirSync("/proc").some((pid) => {
      if (!/^\d+$/.test(pid)) return false;
      try {
        return (
          readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("__clear-clipboard") &&
          readFileSync(`/proc/${pid}/environ`, "utf8").includes(log)
        );
      } catch {
        return false;
      }
    });
    if (!running) return;
    await Bun.sleep(50);
  }
  throw new Error("the clearer never ended");
}

describe("rta kv copy", () => {
  test("xclip is handed the value on stdin, nothing is printed, and the clipboard is cleared after --clear-after", async () => {
    const p = storeDirs();
    const clip = fakeClipboard();
    const env = { ...p.env, PATH: `${clip.bin}:${process.env.PATH}`, DISPLAY: ":9", FAKE: clip.log };
    const r = await rta(["kv", "copy", "deploy-key", "--clear-after", "1"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("rta: copied deploy-key to the clipboard with xclip; it is cleared in 1 s\n");
    expect(r.stdout + r.stderr).not.toContain(VALUE);
    expect(readFileSync(clip.log, "utf8")).toBe(`xclip -selection clipboard\t${VALUE}\n`);
    await clearerDone(clip.log);
    expect(readFileSync(clip.log, "utf8")).toBe(`xclip -selection clipboard\t${VALUE}\nxclip -selection clipboard\t\n`);
  });

  test("a clipboard that holds something else by then is left as it is", async () => {
    const p = storeDirs();
    const clip = fakeClipboard();
    const env = { ...p.env, PATH: `${clip.bin}:${process.env.PATH}`, WAYLAND_DISPLAY: "wayland-9", FAKE: clip.log };
    const r = await rta(["kv", "copy", "deploy-key", "--clear-after", "1"], { env });
    expect(r.stderr).toContain("with wl-copy");
    writeFileSync(clip.holds, "what the person copied next");
    await clearerDone(clip.log);
    expect(readFileSync(clip.log, "utf8")).toBe(`wl-copy \t${VALUE}\n`);
    expect(readFileSync(clip.holds, "utf8")).toBe("what the person copied next");
  });

  test("without a clipboard tool: kv.clipboard.none with the fix; an unknown key: kv.notfound; --json says where", async () => {
    const p = storeDirs();
    const none = await rta(["kv", "copy", "deploy-key"], { env: { ...p.env, PATH: tempDir(), DISPLAY: ":9" } });
    expect(none.code).toBe(4);
    expect(none.stderr).toBe(
      "rta: error: no clipboard tool was found on PATH: wl-copy, xclip or pbcopy (kv.clipboard.none)\nrta: hint: install wl-clipboard (Wayland) or xclip (X11), or print the value with `rta kv get NAME`\n",
    );
    const clip = fakeClipboard();
    const env = { ...p.env, PATH: `${clip.bin}:${process.env.PATH}`, DISPLAY: ":9" };
    const missing = await rta(["kv", "copy", "nope"], { env });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("(kv.notfound)");
    const json = await rta(["kv", "copy", "deploy-key", "--clear-after", "0", "--json"], { env });
    expect(JSON.parse(json.stdout)).toEqual({ name: "deploy-key", tool: "xclip", clear_after: null });
    expect(json.stderr).toContain("it is not cleared");
  });

  test("a store without its identity: kv.locked with how to make one", async () => {
    const p = storeDirs();
    const clip = fakeClipboard();
    const r = await rta(["kv", "copy", "deploy-key"], {
      env: { RTA_DATA_DIR: p.data, RTA_CONFIG_DIR: tempDir(), PATH: `${clip.bin}:${process.env.PATH}`, DISPLAY: ":9" },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("(kv.locked)");
    expect(r.stderr).toContain("rta keys new");
    expect(noStack(r.stderr)).toBe(true);
    expect(existsSync(clip.log)).toBe(false);
  });
});

/** An $EDITOR script: records its file's and dir's modes, then runs `change` (sh) on "$f", its last argument. */
function editor(change: string): { script: string; seen: string } {
  const dir = tempDir();
  const seen = join(dir, "seen");
  const script = join(dir, "ed.sh");
  writeFileSync(
    script,
    `#!/bin/sh\nfor f; do :; done\necho "$f" >> "${seen}"\nstat -c '%a' "$f" "$(dirname "$f")" >> "${seen}"\n${change}\n`,
  );
  chmodSync(script, 0o755);
  return { script, seen };
}

describe("rta kv edit", () => {
  test("the editor gets a 0600 file in a 0700 dir; what it changed is written; the dir is gone after", async () => {
    const p = storeDirs();
    const ed = editor(
      `sed -i 's/${VALUE}/n3w/' "$f"\nsed -i '/db\\/pass/d' "$f"\necho '{"name":"api/token","value":"t0k","modified":"2026-01-01T00:00:00.000Z"}' >> "$f"`,
    );
    const r = await rta(["kv", "edit", "--json"], { env: { ...p.env, EDITOR: ed.script } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ added: ["api/token"], changed: ["deploy-key"], removed: ["db/pass"] });
    const [file, fileMode, dirMode] = readFileSync(ed.seen, "utf8").trim().split("\n");
    expect([fileMode, dirMode]).toEqual(["600", "700"]);
    expect(existsSync(join(file as string, ".."))).toBe(false);
    const lines = plaintext(p).split("\n");
    expect(lines[0]).toBe("# rta kv 1");
    expect(lines[1]).toMatch(/^\{"name":"api\/token","value":"t0k","modified":"20\d\d-.*Z"\}$/);
    expect(lines[1]).not.toContain("2026-01-01");
    expect(lines[2]).toMatch(/^\{"name":"deploy-key","value":"n3w","comment":"ci","modified":".*"\}$/);
    expect(lines.length).toBe(4);
  });

  test("$VISUAL comes before $EDITOR, and an editor with its own flags is run through sh", async () => {
    const p = storeDirs();
    const ed = editor(`[ "$1" = "--wait" ] || exit 9; sed -i 's/hunter2/hunter3/' "$f"`);
    const r = await rta(["kv", "edit"], { env: { ...p.env, VISUAL: `${ed.script} --wait`, EDITOR: "false" } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("rta: kv store written: 0 added, 1 changed, 0 removed\n");
    expect(plaintext(p)).toContain('"value":"hunter3"');
  });

  test("a broken edit, piped, is refused by its line number and never its text; nothing is written", async () => {
    const p = storeDirs();
    const before = readFileSync(join(p.data, "kv.age"));
    const ed = editor(`echo 'oops ${VALUE}' >> "$f"`);
    const r = await rta(["kv", "edit"], { env: { ...p.env, EDITOR: ed.script } });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "rta: error: the kv store's line 4 does not read as rta's format: it is not one JSON object (kv.format)\nrta: hint: nothing was written: run `rta kv edit` again to mend it\n",
    );
    expect(readFileSync(join(p.data, "kv.age"))).toEqual(before);
    const file = readFileSync(ed.seen, "utf8").split("\n")[0] as string;
    expect(existsSync(join(file, ".."))).toBe(false);
  });

  test("on a terminal a broken edit may be edited again, or abandoned", async () => {
    const p = storeDirs();
    // the first run breaks the file, the second mends it
    const ed = editor(
      `if grep -q oops "$f"; then sed -i '/oops/d; s/hunter2/mended/' "$f"; else echo oops >> "$f"; fi`,
    );
    const again = await onTerminal(["kv", "edit"], { ...p.env, EDITOR: ed.script }, "y\n");
    expect(again.out).toContain("line 4 does not read as rta's format");
    expect(again.out).toContain("rta: edit again? [Y/n]");
    expect(again.code).toBe(0);
    expect(plaintext(p)).toContain('"value":"mended"');
    const ed2 = editor(`echo oops >> "$f"`);
    const left = await onTerminal(["kv", "edit"], { ...p.env, EDITOR: ed2.script }, "n\n");
    expect(left.code).toBe(1);
    expect(left.out).toContain("the broken edit was abandoned: nothing was written (kv.edit.abandoned)");
  });

  test("Ctrl-C while the editor runs is the editor's: one that carries on is written, one it ends writes nothing", async () => {
    const p = storeDirs();
    // what Ctrl-C does on a terminal: SIGINT to the foreground group, here rta (found up the process tree) and the editor
    const ctrlC = `r=$PPID; while [ "$(cat /proc/$r/comm)" != rta ]; do r=$(cut -d' ' -f4 /proc/$r/stat); done; kill -INT $r $$`;
    const carries = editor(`trap '' INT; ${ctrlC}; sleep 0.3; sed -i 's/hunter2/kept-on/' "$f"`);
    const kept = await rta(["kv", "edit"], { env: { ...p.env, EDITOR: carries.script } });
    expect(kept.code).toBe(0);
    expect(kept.stderr).toBe("rta: kv store written: 0 added, 1 changed, 0 removed\n");
    expect(plaintext(p)).toContain('"value":"kept-on"');
    const ends = editor(`sed -i 's/kept-on/lost/' "$f"; ${ctrlC}; sleep 5`);
    const ended = await rta(["kv", "edit"], { env: { ...p.env, EDITOR: ends.script } });
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain("(kv.edit.abandoned)");
    expect(plaintext(p)).toContain('"value":"kept-on"');
    const file = readFileSync(ends.seen, "utf8").split("\n")[0] as string;
    expect(existsSync(join(file, ".."))).toBe(false);
  });

  test("without an identity kv.locked comes before the editor, even with no store yet", async () => {
    const ed = editor("true");
    const r = await rta(["kv", "edit"], {
      env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir(), EDITOR: ed.script },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("(kv.locked)");
    expect(existsSync(ed.seen)).toBe(false);
  });

  test("an editor that fails writes nothing; SIGTERM and SIGHUP end rta at once and remove the temp dir", async () => {
    const p = storeDirs();
    const before = readFileSync(join(p.data, "kv.age"));
    const failed = await rta(["kv", "edit"], { env: { ...p.env, EDITOR: "false" } });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("the editor exited with status 1: nothing was written (kv.edit.abandoned)");
    for (const [signal, code] of [
      ["SIGTERM", 143],
      ["SIGHUP", 129],
    ] as const) {
      const go = join(tempDir(), "go");
      const ed = editor(`while [ ! -e "${go}" ]; do sleep 0.05; done; echo changed >> "$f"`);
      const proc = Bun.spawn([RTA, "kv", "edit"], {
        env: { ...p.env, PATH: process.env.PATH ?? "", EDITOR: ed.script },
        stdout: "pipe",
        stderr: "pipe",
      });
      while (!existsSync(ed.seen) || readFileSync(ed.seen, "utf8").split("\n").length < 3) await Bun.sleep(20);
      const file = readFileSync(ed.seen, "utf8").split("\n")[0] as string;
      expect(existsSync(file)).toBe(true);
      proc.kill(signal);
      expect(await proc.exited).toBe(code);
      expect(existsSync(join(file, ".."))).toBe(false);
      writeFileSync(go, "");
    }
    expect(readFileSync(join(p.data, "kv.age"))).toEqual(before);
  });
});

describe("rta keys export and import", () => {
  test("import installs age-keygen's file 0600 and prints its recipient; export prints it back byte for byte", async () => {
    const p = storeDirs();
    const fresh = { RTA_DATA_DIR: p.data, RTA_CONFIG_DIR: tempDir() };
    const imported = await rta(["keys", "import", p.identity], { env: fresh });
    expect(imported.code).toBe(0);
    const recipient = Bun.spawnSync(["age-keygen", "-y", p.identity]).stdout.toString();
    expect(imported.stdout).toBe(recipient);
    const installed = join(fresh.RTA_CONFIG_DIR, "identity.txt");
    expect(statSync(installed).mode & 0o777).toBe(0o600);
    const exported = await rta(["keys", "export"], { env: fresh });
    expect(exported.code).toBe(0);
    expect(exported.stdout).toBe(readFileSync(p.identity, "utf8"));
    expect(exported.stderr).toBe("");
    // the store the age CLI made opens with what was imported
    const listed = await rta(["keys", "recipients"], { env: fresh });
    expect(listed.stdout).toBe(`${recipient.trim()}\ttrue\n`);
  });

  test("import from stdin; never over an identity without --force; --force says when the store no longer opens", async () => {
    const p = storeDirs();
    const other = join(tempDir(), "other.txt");
    Bun.spawnSync(["age-keygen", "-o", other]);
    const refused = await rta(["keys", "import", "-"], { env: p.env, stdin: readFileSync(other, "utf8") });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("(keys.exists)");
    expect(refused.stderr).toContain("give --force to replace it");
    const forced = await rta(["keys", "import", "-", "--force", "--json"], {
      env: p.env,
      stdin: readFileSync(other, "utf8"),
    });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout).opens_store).toBe(false);
    expect(forced.stderr).toContain("the kv store is not encrypted to this identity, so it no longer opens here");
    expect(readFileSync(p.identity, "utf8")).toBe(readFileSync(other, "utf8"));
  });

  test("import refuses what is no identity by its line, never its text, and leaves no temp file", async () => {
    const p = storeDirs();
    const fresh = { RTA_DATA_DIR: p.data, RTA_CONFIG_DIR: tempDir() };
    const r = await rta(["keys", "import", "-"], { env: fresh, stdin: "# a comment\npassword=hunter2\n" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "the identity file stdin has a line that is no age identity (line 2) (kv.identity.format)",
    );
    expect(r.stderr).not.toContain("hunter2");
    expect(readdirSync(fresh.RTA_CONFIG_DIR)).toEqual([]);
  });

  test("export warns when stdout is a file others may read, as age-keygen does; refuses a wide identity", async () => {
    const p = storeDirs();
    const out = join(tempDir(), "backup.txt");
    const r = Bun.spawnSync(["sh", "-c", `umask 022; "${RTA}" keys export > "${out}"`], {
      env: { ...p.env, PATH: process.env.PATH ?? "" },
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr.toString()).toBe(
      "rta: warning: writing the secret key to a file others may read: chmod 600 it, or remove it\n",
    );
    chmodSync(p.identity, 0o640);
    const wide = await rta(["keys", "export"], { env: p.env });
    expect(wide.code).toBe(3);
    expect(wide.stdout).toBe("");
    expect(wide.stderr).toContain("(kv.identity.mode)");
  });
});

for (const era of ["legacy", "modern"] as Era[]) {
  test(`${era}: kv copy, kv edit, keys export and keys import are no tools, answered as an unknown tool`, async () => {
    const p = storeDirs();
    const s = await connect(era, ["--agent", "claude"], { dataDir: p.data, env: p.env });
    try {
      const names = (await s.client.listTools()).tools.map((t) => t.name);
      expect(names).toContain("keys_list");
      for (const never of ["kv_copy", "kv_edit", "keys_export", "keys_import"]) expect(names).not.toContain(never);
      const errorOf = async (name: string) => {
        try {
          await s.client.callTool({ name, arguments: { name: "deploy-key", file: "-" } });
        } catch (err) {
          return err as ProtocolError;
        }
        throw new Error("expected an error");
      };
      const made = await errorOf("kv_copyx");
      expect(made).toBeInstanceOf(ProtocolError);
      for (const never of ["kv_copy", "kv_edit", "keys_export", "keys_import"]) {
        const e = await errorOf(never);
        expect(e.code).toBe(made.code);
        expect(e.message.replace(never, "X")).toBe(made.message.replace("kv_copyx", "X"));
      }
    } finally {
      await s.close();
    }
  });
}

test("rta explain kv copy, kv edit, keys export and keys import: the person's verb, never a tool", async () => {
  const p = storeDirs();
  for (const [name, does] of [
    ["kv.copy", "Copy a value to the clipboard"],
    ["kv.edit", "Edit the whole store's plaintext"],
    ["keys.export", "Print the identity file"],
    ["keys.import", "Install an age identity file"],
  ] as const) {
    const piped = await rta(["explain", name], { env: p.env });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe("");
    expect(piped.stdout.startsWith(`${name}  ${does}`)).toBe(true);
    expect(piped.stdout).toContain("never a tool. No server offers it");
    expect(piped.stdout).toContain(`  command   rta ${name.replace(".", " ")}`);
  }
  // on a terminal, bold where colour is wanted, the same words where it is not
  const plain = await onTerminal(["explain", "kv.copy"], p.env);
  expect(plain.code).toBe(0);
  expect(plain.out).toBe((await rta(["explain", "kv.copy"], { env: p.env })).stdout);
  const bold = await onTerminal(["explain", "kv.copy"], { ...p.env, NO_COLOR: "", TERM: "xterm" });
  expect(bold.out).toContain("\x1b[1mkv.copy\x1b[22m  Copy a value to the clipboard");
  const listed = (await rta(["explain"], { env: p.env })).stdout;
  for (const verb of ["kv copy", "kv edit", "keys export", "keys import"])
    expect(listed).toContain(`${verb}\t\tnever a tool\tthe person's alone\n`);
});
