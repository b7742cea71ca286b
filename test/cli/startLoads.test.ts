/**
 * What a command line evaluates before it runs: `rta mcp ...` builds only its
 * own group, and a server start evaluates no capability's module and none of
 * the code of the groups it does not serve; a capability's module is loaded
 * when it runs; `rta explain` evaluates none of the gate. Each case runs in a
 * fresh process, whose module registry (require.cache, ESM included) shows
 * what was evaluated.
 */
import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";

const src = join(import.meta.dir, "..", "..", "src");

/** The src/ modules a fresh process has evaluated after running `argv` through main(), relative to src/. */
function loadedAfter(argv: string[]): { status: number; loaded: string[] } {
  const dir = tempDir();
  const script = join(dir, "run.ts");
  writeFileSync(
    script,
    `import { main } from ${JSON.stringify(join(src, "cli", "program.ts"))};
const status = await main(${JSON.stringify(argv)});
const loaded = Object.keys(require.cache).filter((k) => k.startsWith(${JSON.stringify(`${src}/`)}));
process.stdout.write(JSON.stringify({ status, loaded: loaded.map((k) => k.slice(${src.length + 1})) }));
`,
  );
  mkdirSync(join(dir, "home"));
  const r = spawnSync(process.execPath, [script], {
    env: {
      PATH: process.env.PATH ?? "",
      HOME: join(dir, "home"),
      RTA_DATA_DIR: join(dir, "data"),
      RTA_CONFIG_DIR: join(dir, "config"),
    },
    encoding: "utf8",
  });
  const out = r.stdout.slice(r.stdout.lastIndexOf('{"status"'));
  return JSON.parse(out);
}

const capabilityModule = (m: string) => /^capabilities\/[a-z]+\//.test(m);
const otherGroups = [
  "cli/capabilityCommands.ts",
  "cli/logFollow.ts",
  "cli/consentCommands.ts",
  "cli/readingCommands.ts",
];

test("a server's start loads the server and evaluates no capability's module and no other group's code", () => {
  // refused after its module is loaded, before anything is served: every module a start needs is evaluated by then
  const { status, loaded } = loadedAfter(["mcp", "serve", "--max-result", "0"]);
  expect(status).toBe(2);
  expect(loaded).toContain("cli/serve.ts");
  expect(loaded).toContain("mcp/server.ts");
  expect(loaded.filter(capabilityModule)).toEqual([]);
  expect(loaded.filter((m) => otherGroups.includes(m))).toEqual([]);
});

test("with no plugin installed, a server's start evaluates none of the plugin protocol's checks or compiled schemas", () => {
  const { status, loaded } = loadedAfter(["mcp", "serve", "--max-result", "0"]);
  expect(status).toBe(2);
  expect(loaded).toContain("gate/pluginDigest.ts");
  expect(loaded.filter((m) => m === "plugins/protocol.ts" || m.startsWith("generated/plugins"))).toEqual([]);
});

test("a capability's module is evaluated when it runs, and only its own", () => {
  const { status, loaded } = loadedAfter(["jwt", "decode", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.x", "--json"]);
  expect(status).toBe(0);
  expect(loaded).toContain("cli/capabilityCommands.ts");
  expect(loaded.filter(capabilityModule)).toEqual(["capabilities/jwt/decode.ts"]);
});

test("a command line that names no group builds every group, as before", () => {
  const { status, loaded } = loadedAfter(["--help"]);
  expect(status).toBe(0);
  expect(otherGroups.every((m) => loaded.includes(m))).toBe(true);
  expect(loaded.filter(capabilityModule)).toEqual([]);
});

test("rta explain evaluates neither the capabilities' code nor the process's dependencies (the stores, the path gate)", () => {
  const { status, loaded } = loadedAfter(["explain", "--json"]);
  expect(status).toBe(0);
  expect(loaded).toContain("cli/explain.ts");
  expect(loaded.filter(capabilityModule)).toEqual([]);
  expect(loaded.filter((m) => m === "cli/deps.ts" || m.startsWith("gate/"))).toEqual([]);
});
