/**
 * End to end: `rta completion <shell>` sourced in the shell completes verbs,
 * flags, capability names, agent names and grant ids, by asking the built
 * binary (`rta __complete`), which reads the grant store only when a word
 * asks for an agent or an id, and never makes one.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { installNote, useNotePlugin } from "../support/plugins.ts";
import { RTA, rta } from "../support/rta.ts";

// note is a plugin: every data dir these tests run rta in has it installed, as a person would have
useNotePlugin();

const has = (shell: string) => Bun.spawnSync(["sh", "-c", `command -v ${shell}`]).exitCode === 0;

/** COMPREPLY after the bash completion function ran on `words` (the last the word being typed). */
function bashComplete(words: string[], env: Record<string, string>): string[] {
  const quoted = words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ");
  const script = `source <(rta completion bash) || exit 9
COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _rta
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = Bun.spawnSync(["bash", "-c", script], {
    env: { ...env, PATH: `${dirname(RTA)}:${process.env.PATH ?? ""}` },
  });
  expect(r.exitCode).toBe(0);
  return r.stdout.toString().split("\n").filter(Boolean);
}

async function place(): Promise<Record<string, string>> {
  const env = { HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  await installNote(env.RTA_DATA_DIR);
  return env;
}

describe("rta completion bash", () => {
  test("is registered for rta, with files as the fallback", () => {
    const r = Bun.spawnSync(["bash", "-c", "source <(rta completion bash) && complete -p rta"], {
      env: { PATH: `${dirname(RTA)}:${process.env.PATH ?? ""}` },
    });
    expect(r.stdout.toString()).toBe("complete -o default -F _rta rta\n");
  });

  test("rta gr<TAB> is grant; rta grant allow no<TAB> is note; a flag, a client, a capability", async () => {
    const env = await place();
    expect(bashComplete(["rta", "gr"], env)).toEqual(["grant"]);
    expect(bashComplete(["rta", "grant", "allow", "no"], env)).toEqual(["note"]);
    expect(bashComplete(["rta", "grant", "allow", "note.r"], env)).toEqual(["note.rm"]);
    expect(bashComplete(["rta", "grant", "allow", "note", "--ag"], env)).toEqual(["--agent"]);
    expect(bashComplete(["rta", "explain", "proc.l"], env)).toEqual(["proc.list"]);
    expect(bashComplete(["rta", "explain", "pro"], env)).toEqual(["proc", "proc.kill", "proc.list"]);
    expect(bashComplete(["rta", "pkg", "remove", ""], env)).toEqual(["note"]);
    expect(bashComplete(["rta", "mcp", "install", "cl"], env)).toEqual(["claude", "claude-code"]);
    expect(bashComplete(["rta", "proc", "list", "--js"], env)).toEqual(["--json"]);
    expect(bashComplete(["rta", "completion", ""], env)).toEqual(["bash", "zsh", "fish"]);
    // --color is every command's, taken before the command line is parsed: its values complete too
    expect(bashComplete(["rta", "--color", ""], env)).toEqual(["auto", "always", "never"]);
    expect(bashComplete(["rta", "--color", "never", "proc", "l"], env)).toEqual(["list"]);
    expect(bashComplete(["rta", "sys", "info", "--col"], env)).toEqual(["--color"]);
    // nothing asked for the store, and none was made
    expect(readdirSync(env.RTA_DATA_DIR as string)).toEqual(["plugins"]);
    expect(bashComplete(["rta", "grant", "list", "--agent", ""], env)).toEqual([]);
    expect(readdirSync(env.RTA_DATA_DIR as string)).toEqual(["plugins"]);
  });

  test("the new commands: audit kube's audits, a capability's options, mcp inspect --era's revisions", async () => {
    const env = await place();
    expect(bashComplete(["rta", "audit", "kube", ""], env)).toEqual(["eol", "netpol", "podsecurity", "quotas", "rbac"]);
    expect(bashComplete(["rta", "eol", ""], env)).toEqual(["check", "products", "watch"]);
    // an input's options complete as a flag's choices do, and rta checks them itself
    expect(bashComplete(["rta", "proc", "list", "--sort", ""], env)).toEqual(["cpu", "mem", "pid"]);
    expect(bashComplete(["rta", "mcp", "inspect", "--era", "2026"], env)).toEqual(["2026-07-28"]);
    expect(bashComplete(["rta", "mcp", "inspect", "--era", ""], env)).toEqual(["2025-11-25", "2026-07-28"]);
  });

  test("agent names and grant ids come from the grant store", async () => {
    const env = await place();
    const issued = await rta(["grant", "allow", "note", "--agent", "claude", "--ttl", "1h", "--json"], { env });
    expect(issued.code).toBe(0);
    const id = JSON.parse(issued.stdout).id ?? JSON.parse(issued.stdout).grant?.id;
    expect(typeof id).toBe("string");
    expect(bashComplete(["rta", "grant", "list", "--agent", "cl"], env)).toEqual(["claude"]);
    expect(bashComplete(["rta", "grant", "revoke", ""], env)).toEqual([id]);
    expect(bashComplete(["rta", "lock", "--agent", ""], env)).toEqual(["claude"]);
  });
});

describe("rta completion zsh and fish", () => {
  for (const shell of ["zsh", "fish"]) {
    // skipped where the shell is not installed: there is nothing to parse the script with
    test.skipIf(!has(shell))(`the ${shell} script parses (${shell} -n)`, async () => {
      const r = await rta(["completion", shell]);
      expect(r.code).toBe(0);
      const file = join(tempDir(), `rta.${shell}`);
      writeFileSync(file, r.stdout);
      const check = Bun.spawnSync([shell, "-n", file]);
      expect(check.stderr.toString()).toBe("");
      expect(check.exitCode).toBe(0);
    });
  }

  const path = () => `${dirname(RTA)}:${process.env.PATH ?? ""}`;

  test.skipIf(!has("zsh"))(
    "zsh: the function offers grant for gr, note for grant allow no, and files for --root",
    async () => {
      // compadd and _files stand in for zsh's completion system, which needs a terminal
      const script = `compdef() { :; }; source <(rta completion zsh)
compadd() { shift 2; print -l -- "$@"; }; _files() { print FILES; }
words=(rta gr); CURRENT=2; _rta; words=(rta grant allow no); CURRENT=4; _rta
words=(rta mcp install --root ""); CURRENT=5; _rta`;
      const r = Bun.spawnSync(["zsh", "-c", script], { env: { ...(await place()), PATH: path() } });
      expect(r.stdout.toString()).toBe("grant\nnote\nFILES\n");
    },
  );

  test.skipIf(!has("fish"))("fish: complete -C offers grant for rta gr and note for rta grant allow no", async () => {
    const script = 'rta completion fish | source; complete -C "rta gr"; complete -C "rta grant allow no"';
    const r = Bun.spawnSync(["fish", "--no-config", "-c", script], { env: { ...(await place()), PATH: path() } });
    expect(r.stdout.toString()).toBe("grant\nnote\n");
  });

  test("each script calls the hidden verb and registers for rta; another shell is refused", async () => {
    expect((await rta(["completion", "zsh"])).stdout).toContain("compdef _rta rta");
    expect((await rta(["completion", "fish"])).stdout).toContain("complete -c rta -f -a '(__rta_complete)'");
    const r = await rta(["completion", "tcsh"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("(core.input.option)");
  });
});

describe("a bare rta", () => {
  test("prints the help on stdout, exit 0, listing completion", async () => {
    const r = await rta([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toStartWith("Usage: rta");
    expect(r.stdout).toContain("completion");
    expect(r.stderr).toBe("");
  });
});
