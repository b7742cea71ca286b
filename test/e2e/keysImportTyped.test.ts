/**
 * End to end: `rta keys import -` at a terminal. The secret key pasted there
 * was echoed, so it stood on the screen and in the scrollback; it is read
 * with the echo off, as `rta kv set` reads a value. It is typed once the
 * prompt is shown, as a person does: typed before, the terminal echoes it
 * before rta has started.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { RTA } from "../support/rta.ts";

/** Runs rta at a terminal, types `typed` once the prompt shows, and gives back all it printed and its exit code. */
async function typedAtPrompt(args: string, env: Record<string, string>, typed: string) {
  const proc = Bun.spawn(["script", "-qec", `${RTA} ${args}`, "/dev/null"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", NO_COLOR: "1", TERM: "dumb", ...env },
  });
  let out = "";
  const decoder = new TextDecoder();
  const reader = proc.stdout.getReader();
  let typedYet = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += decoder.decode(value);
    if (!typedYet && out.includes("(not shown as you type): ")) {
      typedYet = true;
      proc.stdin.write(`${typed}\r`);
      await proc.stdin.flush();
    }
  }
  return { out, code: await proc.exited, typedYet };
}

test("the secret key typed or pasted at a terminal is not shown, and is installed", async () => {
  const made = join(tempDir(), "made.txt");
  expect(Bun.spawnSync(["age-keygen", "-o", made], { stderr: "ignore" }).exitCode).toBe(0);
  const secret = readFileSync(made, "utf8")
    .split("\n")
    .find((l) => l.startsWith("AGE-SECRET-KEY-1")) as string;
  const config = tempDir();
  const env = { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: config, HOME: tempDir() };
  const ran = await typedAtPrompt("keys import -", env, secret);
  expect(ran).toMatchObject({ typedYet: true, code: 0 });
  expect(ran.out).not.toContain(secret);
  expect(ran.out).toContain("installed the identity");
  expect(readFileSync(join(config, "identity.txt"), "utf8")).toContain(secret);

  // kv set's value, typed as soon as its prompt shows, is not echoed either
  const value = "typed-at-the-prompt-42";
  const set = await typedAtPrompt("kv set typed", env, value);
  expect(set).toMatchObject({ typedYet: true, code: 0 });
  expect(set.out).not.toContain(value);
});
