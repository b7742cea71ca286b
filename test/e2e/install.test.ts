/**
 * End to end: `rta mcp install <client>` prints the client's own format
 * wherever stdout goes, so `>> file` leaves a file that client reads; with
 * --write it merges into the client's file, as that client's parser reads it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, realpathSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client as McpClient } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLIENTS, type Client } from "../../src/mcp/install.ts";
import { CLIENT_FILE_LIMIT_BYTES, parseAs } from "../../src/mcp/installMerge.ts";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { RTA, rta } from "../support/rta.ts";
import { onTerminal } from "../support/terminal.ts";

const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/** Runs `rta <args> >> file` in a shell, as a person would. */
function appendTo(file: string, args: string[], env: Record<string, string>): { code: number; stderr: string } {
  const line = `${[RTA, ...args].map(quote).join(" ")} >> ${quote(file)}`;
  const r = Bun.spawnSync(["sh", "-c", line], { env: { PATH: process.env.PATH ?? "", ...env } });
  return { code: r.exitCode, stderr: r.stderr.toString() };
}

function entryIn(client: Client, text: string): Record<string, unknown> {
  const doc = parseAs(client, text) as Record<string, Record<string, Record<string, unknown>>>;
  const key = client === "codex" ? "mcp_servers" : client === "vscode" ? "servers" : "mcpServers";
  return doc[key]?.rta as Record<string, unknown>;
}

type Registration = { command: string; args: string[]; env: Record<string, string> };

/**
 * Starts the server as a client would from its registration (the registration's
 * environment over a bare PATH and HOME), asks it for one fs_write and returns the result.
 */
async function writeAsRegistered(
  reg: Registration,
  home: string,
  args: Record<string, unknown>,
  cwd?: string,
): Promise<Record<string, unknown>> {
  const transport = new StdioClientTransport({
    command: reg.command,
    args: reg.args,
    ...(cwd === undefined ? {} : { cwd }),
    env: { PATH: process.env.PATH ?? "", HOME: home, ...reg.env },
    stderr: "ignore",
  });
  const client = new McpClient({ name: "e2e", version: "1" });
  await client.connect(transport);
  try {
    return resultJson(await client.callTool({ name: "fs_write", arguments: args }));
  } finally {
    await client.close();
  }
}

function place(): { env: Record<string, string>; project: string } {
  const env = { HOME: tempDir(), RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() };
  return { env, project: realpathSync(tempDir()) };
}

describe("rta mcp install, piped", () => {
  for (const client of CLIENTS) {
    test(`${client} >> file gives a file ${client}'s parser reads, with the dirs and the root`, () => {
      const { env, project } = place();
      const file = join(tempDir(), "out");
      const r = appendTo(file, ["mcp", "install", client, "--root", project], env);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain("add this to");
      const entry = entryIn(client, readFileSync(file, "utf8"));
      expect(entry.command).toBe(RTA);
      expect(entry.args).toEqual(["mcp", "serve", "--agent", client, "--root", project]);
      expect(entry.env).toEqual({ RTA_DATA_DIR: env.RTA_DATA_DIR, RTA_CONFIG_DIR: env.RTA_CONFIG_DIR });
    });
  }

  test("codex >> a config with other tables, twice: the file still parses, the second append is refused", () => {
    const { env, project } = place();
    const file = join(tempDir(), "config.toml");
    writeFileSync(file, '# mine\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x"');
    expect(appendTo(file, ["mcp", "install", "codex", "--root", project], env).code).toBe(0);
    const second = appendTo(file, ["mcp", "install", "codex", "--root", project], env);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain("already registers rta");
    expect(second.stderr).toContain("(core.config.unreadable)");
    // the hint keeps the person's own flags: a bare `rta mcp install codex --write` would register no --root,
    // and the server would serve whatever directory the client starts it in
    expect(second.stderr).toContain(
      "rta: hint: run the same command with --write in place of the redirection, to merge it into the client's file",
    );
    expect(second.stderr).not.toContain("`rta mcp install codex --write`");
    const text = readFileSync(file, "utf8");
    const doc = Bun.TOML.parse(text) as { model: string; mcp_servers: Record<string, { command: string }> };
    expect(doc.model).toBe("o3");
    expect(Object.keys(doc.mcp_servers)).toEqual(["other", "rta"]);
    expect(text).toStartWith("# mine\n");
  });

  test("cursor >> a file that already holds JSON is refused, and the file is left as it was", () => {
    const { env } = place();
    const file = join(tempDir(), "mcp.json");
    writeFileSync(file, '{"mcpServers":{}}\n');
    const r = appendTo(file, ["mcp", "install", "cursor"], env);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("(core.config.unreadable)");
    expect(r.stderr).toContain("rta: hint: run the same command with --write in place of the redirection");
    expect(readFileSync(file, "utf8")).toBe('{"mcpServers":{}}\n');
  });

  test("--json prints rta's description of the registration, naming the file", async () => {
    const { env } = place();
    const r = await rta(["mcp", "install", "codex", "--json"], { env: { ...env, CODEX_HOME: "/srv/codex" } });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ client: "codex", file: "/srv/codex/config.toml", command: RTA });
  });
});

test("RTA_STORE is not carried into a registration, and the person is told where the store goes instead", async () => {
  const { env } = place();
  const store = "postgres://ops:s3cret@127.0.0.1:1/rta";
  const r = await rta(["mcp", "install", "codex", "--json"], { env: { ...env, RTA_STORE: store } });
  expect(r.code).toBe(0);
  expect(r.stdout).not.toContain("s3cret");
  expect(r.stdout).not.toContain("RTA_STORE");
  expect(r.stderr).toContain("RTA_STORE is not carried into the registration");
  expect(r.stderr).toContain("set `store` in config.toml instead");
  expect(r.stderr).not.toContain("s3cret");
});

test("with a store named in config.toml, which the carried config dir gives the server, no note says the data dir", async () => {
  const { env } = place();
  writeFileSync(join(env.RTA_CONFIG_DIR as string, "config.toml"), 'store = "postgres://ops@127.0.0.1:1/rta"\n');
  const r = await rta(["mcp", "install", "codex", "--json"], {
    env: { ...env, RTA_STORE: "postgres://ops:s3cret@127.0.0.1:1/other" },
  });
  expect(r.code).toBe(0);
  expect(r.stderr).not.toContain("RTA_STORE is not carried");
  expect(r.stdout + r.stderr).not.toContain("s3cret");
});

describe("rta mcp install, on a terminal", () => {
  test("codex prints TOML, not JSON, and the note is about where it goes", async () => {
    const { env, project } = place();
    const r = await onTerminal(["mcp", "install", "codex", "--root", project], env);
    expect(r.code).toBe(0);
    expect(r.out).toContain("[mcp_servers.rta]\n");
    expect(r.out).toContain(`args = ["mcp", "serve", "--agent", "codex", "--root", "${project}"]`);
    expect(r.out).toContain(`rta: add this to ${env.HOME}/.codex/config.toml`);
  });
});

describe("rta mcp install --write", () => {
  test("vscode: the project's .vscode/mcp.json keeps its comments, and says where it wrote", async () => {
    const { env, project } = place();
    const file = join(project, ".vscode", "mcp.json");
    Bun.spawnSync(["mkdir", "-p", join(project, ".vscode")]);
    writeFileSync(file, '{\n  // the team\'s servers\n  "servers": {\n    "other": { "command": "x" },\n  },\n}\n');
    const r = await rta(["mcp", "install", "vscode", "--root", project, "--write"], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(`rta: wrote ${file} (the old file is kept as ${file}.bak-`);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("// the team's servers");
    expect(Object.keys((Bun.JSONC.parse(text) as { servers: object }).servers)).toEqual(["other", "rta"]);
  });

  test("claude-code with neither --project nor --root is refused with the way to name it; the current dir is left", async () => {
    const { env, project } = place();
    const r = Bun.spawnSync([RTA, "mcp", "install", "claude-code", "--write"], {
      cwd: project,
      env: { PATH: process.env.PATH ?? "", ...env },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr.toString()).toContain("(core.input.missing)");
    expect(r.stderr.toString()).toContain("--project DIR");
    expect(Bun.file(join(project, ".mcp.json")).size).toBe(0);
  });

  test("claude-code --project writes the project's .mcp.json, serving the project", async () => {
    const { env, project } = place();
    const r = await rta(["mcp", "install", "claude-code", "--project", project, "--write"], { env });
    expect(r.code).toBe(0);
    const entry = entryIn("claude-code", readFileSync(join(project, ".mcp.json"), "utf8"));
    expect(entry.args).toEqual(["mcp", "serve", "--agent", "claude-code", "--root", project]);
  });

  test("codex honours CODEX_HOME and keeps the rest of its TOML; a file that does not parse is refused", async () => {
    const { env } = place();
    const codexHome = tempDir();
    const file = join(codexHome, "config.toml");
    writeFileSync(file, '# top\nmodel = "o3"\n\n[mcp_servers.rta]\ncommand = "old"\n\n[profiles.x]\nmodel = "y"\n');
    const r = await rta(["mcp", "install", "codex", "--write"], { env: { ...env, CODEX_HOME: codexHome } });
    expect(r.code).toBe(0);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("# top");
    expect(entryIn("codex", text).command).toBe(RTA);
    writeFileSync(file, "[mcp_servers\n");
    const bad = await rta(["mcp", "install", "codex", "--write"], { env: { ...env, CODEX_HOME: codexHome } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${file} is not TOML that rta can read`);
    expect(bad.stderr).toContain("(core.config.unreadable)");
    expect(readFileSync(file, "utf8")).toBe("[mcp_servers\n");
  });

  test("a client file that is a FIFO or past the limit is refused, not waited on or read into memory", async () => {
    const { env } = place();
    const dir = join(env.HOME as string, ".gemini");
    mkdirSync(dir);
    const file = join(dir, "settings.json");
    expect(Bun.spawnSync(["mkfifo", file]).exitCode).toBe(0);
    const fifo = await rta(["mcp", "install", "gemini", "--write"], { env });
    expect(fifo.code).toBe(1);
    expect(fifo.stderr).toContain(`${file} is not JSON that rta can read (not a regular file)`);
    rmSync(file);
    writeFileSync(file, "");
    truncateSync(file, CLIENT_FILE_LIMIT_BYTES + 1);
    const huge = await rta(["mcp", "install", "gemini", "--write"], { env });
    expect(huge.code).toBe(1);
    expect(huge.stderr).toContain("(larger than 4 MiB)");
  });

  test("a root that is not a directory is refused; an unknown client lists the clients", async () => {
    const { env } = place();
    const missing = await rta(["mcp", "install", "cursor", "--root", join(env.HOME as string, "gone")], { env });
    expect(missing.stderr).toContain("is not a directory (core.input.invalid)");
    const r = await rta(["mcp", "install", "notepad"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("claude, claude-code, cursor, vscode, codex, gemini");
  });
});

describe("the registration's dirs", () => {
  test("a client that starts the server with a bare environment sees the grant a person issued under XDG dirs", async () => {
    const home = tempDir();
    const project = realpathSync(tempDir());
    const person = { PATH: process.env.PATH ?? "", HOME: home, XDG_DATA_HOME: tempDir(), XDG_CONFIG_HOME: tempDir() };
    const printed = Bun.spawnSync([RTA, "mcp", "install", "cursor", "--root", project, "--json"], { env: person });
    const reg = JSON.parse(printed.stdout.toString()) as Registration;
    expect(reg.env.RTA_DATA_DIR).toBe(join(person.XDG_DATA_HOME, "rta"));
    const granted = Bun.spawnSync([RTA, "grant", "allow", "fs.write", "--agent", "cursor", "--ttl", "10m"], {
      env: person,
    });
    expect(granted.exitCode).toBe(0);
    // the client's environment: the registration's, and a home that is not the person's
    const r = await writeAsRegistered(reg, tempDir(), { path: "hello.txt", content: "hi" });
    expect(r).toMatchObject({ value: { created: true } });
    expect(readFileSync(join(project, "hello.txt"), "utf8")).toBe("hi");
  }, 30_000);
});

describe("codex's config under a root", () => {
  test("CODEX_HOME goes into codex's registration, so the server it starts withholds codex's config from agents", async () => {
    const home = tempDir();
    const project = realpathSync(tempDir());
    const codexHome = join(project, ".codex");
    const person = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      RTA_DATA_DIR: tempDir(),
      RTA_CONFIG_DIR: tempDir(),
      CODEX_HOME: codexHome,
    };
    const written = Bun.spawnSync([RTA, "mcp", "install", "codex", "--root", project, "--write"], { env: person });
    expect(written.exitCode).toBe(0);
    const file = join(codexHome, "config.toml");
    const before = readFileSync(file, "utf8");
    const reg = entryIn("codex", before) as Registration;
    expect(reg.env.CODEX_HOME).toBe(codexHome);
    const granted = Bun.spawnSync([RTA, "grant", "allow", "fs.write", "--agent", "codex", "--ttl", "10m"], {
      env: person,
    });
    expect(granted.exitCode).toBe(0);
    // codex starts its servers with the registration's environment, not its own CODEX_HOME
    const r = await writeAsRegistered(reg, home, {
      path: ".codex/config.toml",
      content: '[mcp_servers.x]\ncommand = "sh"\n',
      mode: "overwrite",
    });
    expect(r).toMatchObject({ type: "error", code: "core.path.withheld" });
    expect(readFileSync(file, "utf8")).toBe(before);
  }, 30_000);
});

describe("codex's config under a root, served to another client", () => {
  test("cursor's registration carries CODEX_HOME too, so its server keeps codex's config from agents", async () => {
    const project = realpathSync(tempDir());
    const codexHome = join(project, ".codex");
    mkdirSync(codexHome);
    const file = join(codexHome, "config.toml");
    writeFileSync(file, 'model = "o3"\n');
    const person = {
      PATH: process.env.PATH ?? "",
      HOME: tempDir(),
      RTA_DATA_DIR: tempDir(),
      RTA_CONFIG_DIR: tempDir(),
      CODEX_HOME: codexHome,
    };
    const printed = Bun.spawnSync([RTA, "mcp", "install", "cursor", "--root", project, "--json"], { env: person });
    const reg = JSON.parse(printed.stdout.toString()) as Registration;
    expect(reg.env.CODEX_HOME).toBe(codexHome);
    expect(
      Bun.spawnSync([RTA, "grant", "allow", "fs.write", "--agent", "cursor", "--ttl", "10m"], { env: person }).exitCode,
    ).toBe(0);
    const r = await writeAsRegistered(reg, person.HOME, {
      path: ".codex/config.toml",
      content: '[mcp_servers.x]\ncommand = "sh"\n',
      mode: "overwrite",
    });
    expect(r).toMatchObject({ type: "error", code: "core.path.withheld" });
    expect(readFileSync(file, "utf8")).toBe('model = "o3"\n');
  }, 30_000);
});

describe("a client file an agent could write", () => {
  test("--write into a project under an agent's root names the servers the file already registered", async () => {
    const { env } = place();
    const root = realpathSync(tempDir());
    const project = join(root, "app");
    mkdirSync(project);
    const granted = await rta(["grant", "allow", "fs.write", "--agent", "claude-code", "--ttl", "10m"], { env });
    expect(granted.code).toBe(0);
    // the agent, served the folder above the project, plants the project's file before the person registers rta
    const s = await connect("legacy", ["--root", root, "--agent", "claude-code"], {
      dataDir: env.RTA_DATA_DIR,
      env: { RTA_CONFIG_DIR: env.RTA_CONFIG_DIR as string },
    });
    try {
      const planted = { mcpServers: { helper: { command: "sh", args: ["-c", "true"] } } };
      const r = await s.client.callTool({
        name: "fs_write",
        arguments: { path: "app/.mcp.json", content: JSON.stringify(planted) },
      });
      expect(resultJson(r)).toMatchObject({ value: { created: true } });
    } finally {
      await s.close();
    }
    const w = await rta(["mcp", "install", "claude-code", "--project", project, "--write"], { env });
    expect(w.code).toBe(0);
    expect(w.stderr).toContain(
      'rta: note: it also registers "helper", kept as they were; claude-code starts those too',
    );
    const fresh = await rta(["mcp", "install", "cursor", "--write"], { env });
    expect(fresh.stderr).not.toContain("also registers");
  }, 30_000);
});

describe("a project inside a root", () => {
  test("is served as a root too, so a server the client starts elsewhere keeps its registration from agents", async () => {
    const { env } = place();
    const root = realpathSync(tempDir());
    const project = join(root, "app");
    mkdirSync(project);
    const w = await rta(["mcp", "install", "vscode", "--project", project, "--root", root, "--write"], { env });
    expect(w.code).toBe(0);
    expect(w.stderr).toContain(`rta: --project ${project} lies under --root ${root}: it is served as a root too`);
    const file = join(project, ".vscode", "mcp.json");
    const before = readFileSync(file, "utf8");
    const reg = entryIn("vscode", before) as Registration;
    expect(reg.args).toEqual(["mcp", "serve", "--agent", "vscode", "--root", root, "--root", project]);
    expect((await rta(["grant", "allow", "fs.write", "--agent", "vscode", "--ttl", "10m"], { env })).code).toBe(0);
    // started in a directory that is not the project, as a client may
    const planted = JSON.stringify({ servers: { x: { type: "stdio", command: "sh" } } });
    const r = await writeAsRegistered(
      reg,
      env.HOME as string,
      { path: "app/.vscode/mcp.json", content: planted, mode: "overwrite" },
      tempDir(),
    );
    expect(r).toMatchObject({ type: "error", code: "core.path.withheld" });
    expect(readFileSync(file, "utf8")).toBe(before);
  }, 30_000);
});
