import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Capability, RunContext } from "../../src/core/capability.ts";
import { RtaError } from "../../src/core/errors.ts";
import { PluginHosts } from "../../src/plugins/host.ts";
import { tempDir } from "../support/fixtures.ts";
import { fixture, loaded, running } from "./support.ts";

const MiB = 1024 * 1024;
let hosts: PluginHosts;
afterEach(() => hosts?.close());

/** A run context with no paths, as the gate hands a run with none. */
function ctx(signal = new AbortController().signal): RunContext {
  return { signal, paths: {}, budget: 80 * 1024, dataDir: tempDir() } as unknown as RunContext;
}

async function cap(plugin: string, name: string, graceMs?: number): Promise<Capability> {
  hosts ??= new PluginHosts({ maxResult: 8 * MiB });
  if (graceMs !== undefined) {
    hosts.close();
    hosts = new PluginHosts({ maxResult: 8 * MiB, graceMs });
  }
  const found = (await loaded(plugin, hosts)).find((c) => c.name === name);
  if (!found) throw new Error(`${name} is not declared`);
  return found;
}

async function failure(run: Promise<unknown>): Promise<RtaError> {
  try {
    await run;
  } catch (err) {
    if (err instanceof RtaError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("the long-lived child", () => {
  test("a call with no path input is answered by the plugin, its value as the run's result", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB });
    const echo = await cap("demo", "demo.echo");
    expect(await echo.run({ text: 'a "quoted", \\ text\n' }, ctx())).toEqual({
      type: "text",
      text: 'a "quoted", \\ text\n',
    });
  });

  test("one child answers every call, and a new one is started once it died", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB });
    const env = await cap("demo", "demo.env");
    const first = (await env.run({}, ctx())) as unknown as { value: { pid: number } };
    const second = (await env.run({}, ctx())) as unknown as { value: { pid: number } };
    expect(second.value.pid).toBe(first.value.pid);
    process.kill(first.value.pid, "SIGKILL");
    for (let i = 0; i < 100 && running("rta-plugin-demo").includes(first.value.pid); i++) await Bun.sleep(20);
    await Bun.sleep(50);
    const third = (await env.run({}, ctx())) as unknown as { value: { pid: number } };
    expect(third.value.pid).not.toBe(first.value.pid);
  });

  test("it starts with cwd /, the fixed environment and nothing of the server's", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB });
    process.env.RTA_TEST_TOKEN = "sekrit";
    const env = await cap("demo", "demo.env");
    const { value } = (await env.run({}, ctx())) as unknown as { value: Record<string, unknown> };
    expect(value).toMatchObject({ path: "/usr/local/bin:/usr/bin:/bin", lang: "C.UTF-8", protocol: "1", cwd: "/" });
    expect(JSON.stringify(value)).not.toContain("sekrit");
    // PATH, LANG, HOME, RTA_PLUGIN_PROTOCOL, and the LC_ALL the script exports itself
    expect(value.exported).toBeLessThanOrEqual(6);
    delete process.env.RTA_TEST_TOKEN;
  });

  test("a plugin's own error keeps its code under the prefix, its message and hint", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB });
    const echo = await cap("demo", "demo.echo");
    const err = await failure(echo.run({ text: "" }, ctx()));
    expect([err.code, err.message, err.hint]).toEqual(["demo.empty", "there is no text to say back", "send a text"]);
    expect(err.exit).toBe(1);
  });

  test("a plugin that answers a cancel is cancelled", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB });
    const sleep = await cap("demo", "demo.sleep");
    const abort = new AbortController();
    const run = sleep.run({}, ctx(abort.signal));
    await Bun.sleep(100);
    abort.abort();
    const err = await failure(run);
    expect(err.code).toBe("core.call.cancelled");
  });
});

describe("what a plugin gets wrong", () => {
  test("a crash mid-call is core.plugin.failed, its stderr tail kept for the record only", async () => {
    const crash = await cap("crash", "crash.now");
    const err = await failure(crash.run({}, ctx()));
    expect(err.code).toBe("core.plugin.failed");
    expect(err.message).toBe("plugin crash failed: it exited before it answered");
    expect(err.message + (err.hint ?? "")).not.toContain("fall over");
    expect(err.detail).toContain("crash.now: about to fall over");
    expect(err.detail).toContain("exit status 3");
  });

  test("a frame whose length is no number is core.plugin.failed", async () => {
    const garbled = await cap("garbled", "garbled.go");
    const err = await failure(garbled.run({}, ctx()));
    expect(err.code).toBe("core.plugin.failed");
    expect(err.message).toContain("a Content-Length that is not a decimal number");
  });

  test("an answer of the wrong shape, or with a code outside the prefix, is core.plugin.failed", async () => {
    const shape = await cap("wrong", "wrong.shape");
    const bad = await failure(shape.run({}, ctx()));
    expect(bad.code).toBe("core.plugin.failed");
    expect(bad.message).toBe("plugin wrong failed: its answer to wrong.shape is a table, not the text it declared");
    const code = await cap("wrong", "wrong.code");
    const outside = await failure(code.run({}, ctx()));
    expect(outside.code).toBe("core.plugin.failed");
    expect(outside.message).toContain("an error outside its prefix");
  });

  test("an answer declared past the bound is core.result.toolarge from its header, and the plugin is stopped", async () => {
    const huge = await cap("huge", "huge.dump");
    const err = await failure(huge.run({}, ctx()));
    expect(err.code).toBe("core.result.toolarge");
    expect(err.message).toBe("the result is at least 100.0 MiB, over the 8 MiB limit");
    // killed: gone once the kernel has taken it down (waited for, never timed)
    for (let i = 0; i < 100 && running("rta-plugin-huge").length > 0; i++) await Bun.sleep(20);
    expect(running("rta-plugin-huge")).toEqual([]);
  });

  test("a plugin that ignores cancel is killed after the grace period, and the call is cancelled", async () => {
    const hang = await cap("hang", "hang.wait", 300);
    const abort = new AbortController();
    const run = hang.run({}, ctx(abort.signal));
    await Bun.sleep(100);
    abort.abort();
    const err = await failure(run);
    expect(err.code).toBe("core.call.cancelled");
    // the next call starts a new child: the killed one is not reused
    const again = new AbortController();
    const next = hang.run({}, ctx(again.signal));
    await Bun.sleep(100);
    again.abort();
    expect((await failure(next)).code).toBe("core.call.cancelled");
  });

  test("a run that is not answered in time is cancelled, killed after the grace, and fails; the next is served", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB, graceMs: 100, runMs: 300 });
    const hang = await cap("hang", "hang.wait");
    // the second waits its turn behind the first, and has no more time than it
    const [err, queued] = await Promise.all([failure(hang.run({}, ctx())), failure(hang.run({}, ctx()))]);
    expect([err.code, err.message]).toEqual([
      "core.plugin.failed",
      "plugin hang failed: it did not answer within 0.3 s",
    ]);
    expect(err.detail).toContain("hang.wait: not answering");
    expect([queued.code, queued.message]).toEqual([err.code, err.message]);
    // one that answers the cancel it was sent for being late fails all the same, and stays up for the next call
    const sleep = await cap("demo", "demo.sleep");
    expect((await failure(sleep.run({}, ctx()))).message).toBe("plugin demo failed: it did not answer within 0.3 s");
    const echo = await cap("demo", "demo.echo");
    expect(await echo.run({ text: "next" }, ctx())).toEqual({ type: "text", text: "next" });
  });

  test("calls to the long-lived child wait their turn, and one cancelled while it waits ends at once, before the call ahead of it", async () => {
    const hang = await cap("hang", "hang.wait", 300);
    const first = new AbortController();
    const running = hang.run({}, ctx(first.signal));
    const second = new AbortController();
    const waiting = hang.run({}, ctx(second.signal));
    await Bun.sleep(100);
    second.abort();
    expect((await failure(waiting)).code).toBe("core.call.cancelled");
    first.abort();
    expect((await failure(running)).code).toBe("core.call.cancelled");
  });
});

describe("the binary a child is started from", () => {
  test("is the one its ref's digest names: a file put at the name since is refused, and never started", async () => {
    hosts = new PluginHosts({ maxResult: 8 * MiB });
    const dir = tempDir();
    const file = join(dir, "rta-plugin-demo");
    copyFileSync(fixture("demo"), file);
    const echo = (await loaded("demo", hosts, file)).find((c) => c.name === "demo.echo");
    if (!echo) throw new Error("demo.echo is not declared");
    const proof = join(dir, "ran");
    const other = join(dir, "other");
    writeFileSync(other, `#!/bin/sh\n: >"${proof}"\n`);
    chmodSync(other, 0o700);
    renameSync(other, file);
    const err = await failure(echo.run({ text: "hi" }, ctx()));
    expect(err.code).toBe("core.plugin.invalid");
    expect(err.message).toContain("its binary changed since it was described");
    expect(existsSync(proof)).toBe(false);
  });
});
