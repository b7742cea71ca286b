/**
 * Build step after gen-validators.ts: compiles dist/rta, starts it once as a
 * stdio server through its handshake and one call (in a temp dir, so nothing
 * of the builder's is touched) to write down the order its bytecode runs in,
 * and compiles it again with its bytecode laid out in that order: a server
 * start then reads fewer of the binary's pages, and holds fewer in memory.
 * Both builds start with the JIT held back (JIT_POLICY_AT_START).
 * If the run does not give an order, the first build stays, and it is said.
 * Then the note plugin is compiled beside it, into dist/plugins.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const out = join(root, "dist", "rta");
/** JavaScriptCore's tier-up thresholds are this many times their normal while rta starts: start-up code runs once. */
const JIT_POLICY_AT_START = 4;
/** How rta and the note plugin alike are compiled: a binary that reads no file of the place it is run in. */
const COMPILE = [
  "--compile",
  "--no-compile-autoload-dotenv",
  "--no-compile-autoload-bunfig",
  "--no-compile-autoload-tsconfig",
  "--no-compile-autoload-package-json",
  "--minify",
  "--bytecode",
  "--format=esm",
];
const FLAGS = [
  "build",
  join(root, "src", "main.ts"),
  ...COMPILE,
  "--splitting",
  // src/main.ts sets the normal policy back once the start is over
  `--compile-jit-policy=${JIT_POLICY_AT_START}`,
  "--outfile",
  out,
];
/** The longest the ordering run may take: a handshake and one call take well under a second. */
const RUN_LIMIT_MS = 20_000;

function compile(extra: string[] = []): void {
  const r = spawnSync(process.execPath, [...FLAGS, ...extra], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

/** Serves initialize, tools/list and one sys_info call, then closes stdin; resolves once the server has exited. */
function orderRun(dir: string, order: string): Promise<void> {
  const files = join(dir, "root");
  mkdirSync(files, { recursive: true });
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: dir,
    RTA_DATA_DIR: join(dir, "data"),
    RTA_CONFIG_DIR: join(dir, "config"),
    BUN_BYTECODE_ORDER_OUT: order,
  };
  const server = spawn(out, ["mcp", "serve", "--root", files], { env, stdio: ["pipe", "pipe", "ignore"] });
  const requests = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "build", version: "1" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} },
    { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "sys_info", arguments: {} } },
  ];
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => {
      server.kill("SIGKILL");
      reject(new Error("the ordering run did not end"));
    }, RUN_LIMIT_MS);
    let answered = "";
    server.stdout.on("data", (chunk: Buffer) => {
      answered += chunk.toString("utf8");
      // every request is answered: the client leaves, and the server ends its session and exits
      if (answered.split("\n").length - 1 >= requests.filter((r) => "id" in r).length) server.stdin.end();
    });
    server.on("error", reject);
    server.on("exit", () => {
      clearTimeout(limit);
      resolve();
    });
    server.stdin.write(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
  });
}

compile();
const dir = mkdtempSync(join(tmpdir(), "rta-build-"));
const order = join(dir, "bytecode-order");
try {
  await orderRun(dir, order);
  if (existsSync(order)) compile([`--bytecode-order=${order}`]);
  else console.error("build: the ordering run wrote no order; dist/rta keeps its bytecode in source order");
} catch (err) {
  console.error(`build: ${(err as Error).message}; dist/rta keeps its bytecode in source order`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// The note plugin, which `rta pkg install dist/plugins/rta-plugin-note` installs (plugins/note).
const plugin = spawnSync(
  process.execPath,
  [
    "build",
    join(root, "plugins", "note", "main.ts"),
    ...COMPILE,
    "--outfile",
    join(root, "dist", "plugins", "rta-plugin-note"),
  ],
  { stdio: "inherit" },
);
if (plugin.status !== 0) process.exit(plugin.status ?? 1);
