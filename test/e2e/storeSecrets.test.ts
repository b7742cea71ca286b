/**
 * End to end: the shared store's password is an operator secret. Against a real server (whose trust login takes any
 * password, so a URL carrying one works), `rta doctor`, the server's banner, a person's verbs and the record never
 * say it, nor does the answer of an agent that lists the server's own process, whose command line carries --store.
 * Against a server that refuses the password and says it back (test/support/pgEcho.ts), every refusal names the
 * store without it, however the password is spelt.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { pgServer } from "../support/pg.ts";
import { type EchoServer, startPgEcho } from "../support/pgEcho.ts";
import { noStack, RTA, rta } from "../support/rta.ts";

const pg = await pgServer();

/** The banner `rta mcp serve --http` writes with `args`, read up to its shared store's line (or its end). */
async function bannerOf(args: string[]): Promise<string> {
  const data = tempDir();
  const proc = Bun.spawn([RTA, "mcp", "serve", "--http", "127.0.0.1:0", ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: data, RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const reader = proc.stderr.getReader();
  let text = "";
  while (!text.includes("grants, locks and tokens: the shared store")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  while (!text.endsWith("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  proc.kill("SIGTERM");
  await proc.exited;
  return text;
}

/** A fresh pair of dirs for a person's verb. */
const dirs = () => ({ RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() });

describe.skipIf(pg === null)("a store URL with a password, on a server that takes it", () => {
  let url = "";
  let shown = "";
  const PASSWORD_WORDS = ["Pr1vate", "St0reKey"];
  beforeAll(async () => {
    const u = new URL(await (pg?.freshDb() as Promise<string>));
    shown = u.toString();
    // a raw `@` in the password, as an operator may write it: a URL parser takes the userinfo up to the last one
    url = `${u.protocol}//${u.username}:Pr1vate@St0reKey@${u.host}${u.pathname}`;
  });

  const clean = (text: string) => {
    for (const word of PASSWORD_WORDS) expect(text).not.toContain(word);
  };

  test("rta doctor names the store without it, as text and as JSON", async () => {
    for (const args of [["doctor"], ["doctor", "--json"]]) {
      const ran = await rta(args, { env: { ...dirs(), RTA_STORE: url } });
      expect(ran.stdout + ran.stderr).toContain(`${shown}: grants, locks, tokens, rate buckets and the record`);
      clean(ran.stdout + ran.stderr);
    }
  });

  test("the server's banner, a person's verbs and the record never say it; an agent's process list masks it", async () => {
    const data = tempDir();
    const root = tempDir();
    const banner = await bannerOf(["--root", root, "--store", url]);
    expect(banner).toContain(`grants, locks and tokens: the shared store ${shown}`);
    clean(banner);
    const env = { ...dirs(), RTA_STORE: url };
    for (const args of [
      ["grant", "allow", "proc.list", "--agent", "claude", "--ttl", "5m", "--json"],
      ["grant", "list"],
      ["lock", "list", "--json"],
    ]) {
      const ran = await rta(args, { env });
      expect(ran.code).toBe(0);
      clean(ran.stdout + ran.stderr);
    }
    const s = await connect("legacy", ["--agent", "claude", "--root", root, "--store", url], { dataDir: data });
    try {
      const listed = resultJson(await s.client.callTool({ name: "proc_list", arguments: { limit: 1000 } }));
      const text = JSON.stringify(listed);
      expect(text).toContain("--store postgres://***@");
      clean(text);
      clean(s.stderr());
    } finally {
      await s.close();
    }
    // the record is in the store: read there, its lines name the call and never the password
    const log = await rta(["agent", "log", "--json"], { env });
    expect(log.code).toBe(0);
    expect(log.stdout).toContain('"capability":"proc_list","outcome":"ok"');
    clean(log.stdout + log.stderr);
  });
});

describe("a server that refuses the password and says it back", () => {
  let echo: EchoServer;
  beforeAll(async () => {
    echo = await startPgEcho();
  });
  afterAll(() => echo.stop());

  const PASSWORDS: [string, string[]][] = [
    ["Wr0ng%2FEch0Pw", ["Wr0ng", "Ech0Pw"]],
    ["raw@At@Pw9", ["raw@", "At@Pw9", "raw%40"]],
    ["esc\u001b[31mEscPw3", ["EscPw3"]],
  ];

  test("doctor, a person's verb and the server each name the store without it, and no stack", async () => {
    for (const [password, words] of PASSWORDS) {
      const url = `postgres://rta:${password}@127.0.0.1:${echo.port}/teamdb`;
      for (const args of [["doctor"], ["grant", "list"], ["mcp", "serve", "--http", "127.0.0.1:0"]]) {
        const ran = await rta(args, { env: { ...dirs(), RTA_STORE: url } });
        const said = ran.stdout + ran.stderr;
        expect(ran.code).not.toBe(0);
        expect(said).toContain(`the shared store at postgres://rta@127.0.0.1:${echo.port}/teamdb could not be used`);
        expect(said).toContain("password authentication failed");
        for (const word of words) expect(said).not.toContain(word);
        expect(noStack(ran.stderr)).toBe(true);
      }
    }
  });

  test("a password kept out of the URL in PGPASSWORD is sent, and not said back either", async () => {
    const url = `postgres://rta@127.0.0.1:${echo.port}/teamdb`;
    for (const args of [["doctor"], ["grant", "list"]]) {
      const ran = await rta(args, { env: { ...dirs(), RTA_STORE: url, PGPASSWORD: "Env/Pg@Pw2" } });
      expect(ran.code).not.toBe(0);
      expect(ran.stdout + ran.stderr).toContain("password authentication failed: the client sent ***");
      for (const word of ["Env", "Pg@Pw2", "Pg%40Pw2"]) expect(ran.stdout + ran.stderr).not.toContain(word);
    }
  });
});
