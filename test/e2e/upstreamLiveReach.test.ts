/**
 * End to end: an approval binds how an upstream is reached. A config edit
 * that points the same name at another URL is withheld until approved again
 * (upstream.changed), and refresh and approve say what moved; a header added
 * or changed (a rotated token) keeps the approval.
 */
import { afterAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../support/fixtures.ts";
import { connect, resultJson } from "../support/mcpClient.ts";
import { rta } from "../support/rta.ts";
import { approveUpstream } from "../upstreams/approved.ts";
import { startFixture } from "../upstreams/fixtureServer.ts";

const first = startFixture();
const token = first.token;
const second = startFixture({ token });
afterAll(() => {
  first.stop();
  second.stop();
});

async function offered(data: string, env: Record<string, string>) {
  const server = await connect("legacy", [], { dataDir: data, env });
  try {
    const names = (await server.client.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("vendor_"));
    const answer = resultJson(await server.client.callTool({ name: "vendor_echo", arguments: { text: "hi" } }));
    return { names, answer };
  } finally {
    await server.close();
  }
}

test("a URL pointed elsewhere is withheld until approved again; a header change is not", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
  const add = ["upstream", "add", "vendor", "--url", first.url, "--header", `Authorization: Bearer ${token}`];
  expect((await rta(add, { env })).code).toBe(0);
  await approveUpstream(env, "vendor");
  const file = join(config, "config.toml");

  // a header added beside the token: the same server, still approved
  writeFileSync(file, readFileSync(file, "utf8").replace("headers = {", 'headers = { "X-Trace" = "on", '));
  const same = await rta(["upstream", "refresh", "vendor"], { env });
  expect(same.stdout).toBe("vendor\tapproved\t9\n");
  expect((await offered(data, env)).names).toContain("vendor_echo");

  // the same name pointed at another server: withheld whole, the call told why
  writeFileSync(file, readFileSync(file, "utf8").replace(first.url, second.url));
  const moved = await rta(["upstream", "refresh", "vendor", "--json"], { env });
  const row = (JSON.parse(moved.stdout) as { upstreams: Record<string, unknown>[] }).upstreams[0];
  expect(row).toMatchObject({ state: "changed", reached: { old: { url: first.url }, now: { url: second.url } } });
  const held = await offered(data, env);
  expect(held.names).toEqual([]);
  expect(held.answer).toMatchObject({ code: "upstream.changed" });
  expect(String(held.answer.hint)).toContain("rta upstream approve vendor");
  expect(second.calls).toEqual([]);

  // approve shows where it moved, and then it is offered from there
  const approved = await rta(["upstream", "approve", "vendor", "--yes"], { env });
  expect(approved.code).toBe(0);
  expect(approved.stderr).toContain(`its URL changed:\n  was: ${first.url}\n  now: ${second.url}\n`);
  const now = await offered(data, env);
  expect(now.names).toContain("vendor_echo");
  expect(second.calls).toEqual(["echo"]);
  // the token never appears in what approve said
  expect(approved.stdout + approved.stderr).not.toContain(token);
}, 60_000);

test("a Host header, which would send the approved URL to another server at its address, is refused", async () => {
  const data = tempDir();
  const config = tempDir();
  const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: config, HOME: data };
  const add = ["upstream", "add", "vendor", "--url", first.url, "--header", `Authorization: Bearer ${token}`];
  expect((await rta(add, { env })).code).toBe(0);
  await approveUpstream(env, "vendor");
  const refused = await rta(["upstream", "add", "other", "--url", first.url, "--header", "Host: other.example"], {
    env,
  });
  expect(refused.code).toBe(2);
  expect(refused.stderr).toContain("must not name Host");

  // written by hand beside the approved URL: the entry is left out, so nothing of it is offered
  const file = join(config, "config.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace("headers = {", 'headers = { Host = "other.example", '));
  const checked = await rta(["config", "check"], { env });
  expect(checked.stdout + checked.stderr).toContain("must not name Host");
  const server = await connect("legacy", [], { dataDir: data, env });
  try {
    const names = (await server.client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith("vendor_"))).toEqual([]);
  } finally {
    await server.close();
  }
}, 60_000);
