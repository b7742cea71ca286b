/** Plugin capabilities through the whole pipeline, as a server runs them: paths, profiles, the record. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { Catalogue } from "../../src/core/catalogue.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { pluginValidators } from "../../src/plugins/capabilities.ts";
import { PluginHosts } from "../../src/plugins/host.ts";
import { grantFor, testDeps } from "../support/fixtures.ts";
import { loaded } from "./support.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "test 1.0", session: "s1", transport: "memory" };
const hosts = new PluginHosts({ maxResult: 8 * 1024 * 1024 });
afterAll(() => hosts.close());

const caps = [...(await loaded("demo", hosts)), ...(await loaded("escape", hosts)), ...(await loaded("crash", hosts))];
const catalogue = new Catalogue(caps, pluginValidators(caps));
/** The digest a grant on the demo plugin is pinned to: its binary's, as described. */
const demoDigest = caps.find((c) => c.area === "demo")?.plugin?.digest ?? "";

function call(capability: string, args: Record<string, unknown>): Call {
  return { capability, args, origin: agent };
}

/** A server's deps whose one root holds `files`; the root's path. */
function serverWith(files: Record<string, string>) {
  const deps = testDeps();
  const root = deps.roots.roots[0] as string;
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, ".."), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return { deps, root };
}

describe("a plugin capability behind the gate", () => {
  test("an agent's free read is answered and recorded as a built-in's", async () => {
    const { deps } = serverWith({});
    const out = await runCall(call("demo_echo", { text: "hi" }), catalogue, deps);
    expect(out).toEqual({ ok: true, value: { type: "text", text: "hi" } });
    expect(deps.record.lines.at(-1)).toMatchObject({ capability: "demo_echo", outcome: "ok", args: ["text"] });
  });

  test("an argument the plugin did not declare is refused at stage 2, with what the tool takes", async () => {
    const { deps } = serverWith({});
    const out = await runCall(call("demo_echo", { text: "hi", loud: true }), catalogue, deps);
    expect(out.ok ? "" : `${out.error.code} ${out.error.message} / ${out.error.hint}`).toBe(
      'core.mcp.badargs demo_echo: unknown argument "loud" / demo_echo takes: text (string)',
    );
  });

  test("a path input arrives as the descriptor the gate opened, and nothing outside it can be reached through it", async () => {
    const { deps } = serverWith({ "in/file.txt": "twelve bytes", "in/secret": "beside", secret: "above" });
    const out = await runCall(call("escape_try", { file: "in/file.txt" }), catalogue, deps);
    expect(out).toEqual({
      ok: true,
      value: {
        type: "object",
        value: { bytes: 12, parent: "nothing", beside: "nothing", below: "nothing", listing: "nothing", other_fds: "" },
      },
    });
  });

  test("a path outside the roots never reaches the plugin", async () => {
    const { deps } = serverWith({});
    const out = await runCall(call("demo_wc", { file: "/etc/passwd" }), catalogue, deps);
    expect(out.ok ? "ok" : out.error.code).toBe("core.path.outside");
  });

  test("a directory is refused as a path input: its descriptor would lead out", async () => {
    const { deps } = serverWith({ "dir/a": "x" });
    const out = await runCall(call("demo_wc", { file: "dir" }), catalogue, deps);
    expect(out.ok ? "ok" : out.error.code).toBe("fs.notfile");
  });

  test("a file to write is written through the gate's handle, with what the plugin wrote", async () => {
    const { deps, root } = serverWith({});
    grantFor(deps, { target: "demo.stamp", digest: demoDigest });
    const out = await runCall(call("demo_stamp", { file: "done.txt" }), catalogue, deps);
    expect(out).toEqual({ ok: true, value: { type: "object", value: { stamped: true } } });
    expect(readFileSync(join(root, "done.txt"), "utf8")).toBe("stamped by rta-plugin-demo\n");
  });

  test("a crash is core.plugin.failed for the agent, with the stderr tail in the record only", async () => {
    const { deps } = serverWith({});
    const out = await runCall(call("crash_now", {}), catalogue, deps);
    if (out.ok) throw new Error("expected a failure");
    expect(out.error.code).toBe("core.plugin.failed");
    expect(out.error.detail).toBeUndefined();
    expect(JSON.stringify(out.error)).not.toContain("fall over");
    const line = deps.record.lines.at(-1);
    expect(line?.outcome).toBe("core.plugin.failed");
    expect(line?.error?.detail).toContain("crash.now: about to fall over");
  });
});

describe("profiles and fences on plugin inputs", () => {
  const config = '[profiles.team]\narea = "demo"\nonly = { name = ["ops"] }\n';

  function fenced() {
    const { deps } = serverWith({});
    mkdirSync(deps.dirs.config, { recursive: true });
    writeFileSync(join(deps.dirs.config, "config.toml"), config);
    grantFor(deps, { target: "demo.greet", profile: "team", digest: demoDigest });
    return deps;
  }

  test("a fenced input is held to the profile's list", async () => {
    const deps = fenced();
    const inside = await runCall(call("demo_greet", { profile: "team", name: "ops" }), catalogue, deps);
    expect(inside).toEqual({ ok: true, value: { type: "text", text: "hello, ops" } });
    const outside = await runCall(call("demo_greet", { profile: "team", name: "dev" }), catalogue, deps);
    expect(outside.ok ? "ok" : outside.error.code).toBe("core.profile.fenced");
  });

  test("a switch declared to widen the fenced input is refused as core.profile.fenced", async () => {
    const deps = fenced();
    const out = await runCall(call("demo_greet", { profile: "team", name: "ops", everyone: true }), catalogue, deps);
    if (out.ok) throw new Error("expected a refusal");
    expect([out.error.code, out.error.message, out.error.hint]).toEqual([
      "core.profile.fenced",
      "everyone would reach past what this call may reach of name",
      "call without everyone, or without profile",
    ]);
  });

  test("the same switch with no profile named is the plugin's to answer", async () => {
    const deps = fenced();
    const out = await runCall(call("demo_greet", { everyone: true }), catalogue, deps);
    expect(out).toEqual({ ok: true, value: { type: "text", text: "hello, everyone" } });
  });
});
