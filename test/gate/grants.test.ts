import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { shellWord } from "../../src/core/words.ts";
import { argsDigest } from "../../src/gate/argsDigest.ts";
import type { NewGrant } from "../../src/gate/gateStore.ts";
import { allowCommand, grantQuery, recordKey } from "../../src/gate/grants.ts";
import { pinnedDigest } from "../../src/gate/operator/grants.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { fixedClock, testDeps } from "../support/fixtures.ts";
import { noteCatalogue } from "../support/plugins.ts";

const T0 = 1_800_000_000_000;
const catalogue = await noteCatalogue();
const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
const call = (capability: string, args: Record<string, unknown> = {}, name = "claude"): Call => ({
  capability,
  args,
  origin: { ...agent, name },
});

/** A grant on note (a plugin) stands on its binary's digest; one on a built-in on none. */
function setup() {
  const clock = fixedClock(T0);
  const deps = testDeps({ clock });
  const issue = (over: Partial<NewGrant>) =>
    deps.gate().issue({
      target: "note.add",
      record: null,
      agent: "claude",
      connection: null,
      profile: null,
      host: null,
      args_digest: null,
      max_uses: null,
      issued_at: clock.now(),
      expires_at: clock.now() + 300_000,
      issued_by: "ops",
      build: "rta 0.1.0",
      // note is a plugin: a grant on it stands on the binary that described it
      digest: pinnedDigest(catalogue, catalogue.byName(over.target ?? "note.add"), over.target ?? "note.add"),
      ...over,
    });
  const run = async (c: Call) => runCall(c, catalogue, deps);
  return { clock, deps, issue, run };
}

const codeOf = (o: Awaited<ReturnType<typeof runCall>>) => (o.ok ? "ok" : o.error.code);

describe("the grant stage", () => {
  test("a free read needs no grant; a write is refused with the exact command a person would run", async () => {
    const { run } = setup();
    expect(codeOf(await run(call("note_list")))).toBe("ok");
    const out = await run(call("note_add", { title: "t", body: "b" }));
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.error.code).toBe("core.grant.required");
    expect(out.error.message).toBe("note.add needs a grant for agent claude");
    expect(out.error.hint).toBe("a person can allow it by running `rta grant allow note.add --agent claude --ttl 5m`");
  });

  test("a destructive call on one record names the record in the command", async () => {
    const { run } = setup();
    const out = await run(call("note_rm", { id: "deploy-1a2b3c" }));
    if (out.ok) throw new Error("expected a refusal");
    expect(out.error.hint).toContain("`rta grant allow note.rm deploy-1a2b3c --agent claude --ttl 5m`");
  });

  test("a grant for the capability or its area lets the call through, and the record names the grant", async () => {
    const { run, issue, deps } = setup();
    const g = issue({ target: "note" });
    expect(codeOf(await run(call("note_add", { title: "t", body: "b" })))).toBe("ok");
    expect(deps.record.lines.at(-1)?.grant).toBe(g.id);
    expect(codeOf(await run(call("note_add", { title: "t", body: "b" }, "cursor")))).toBe("core.grant.required");
  });

  test("a spent grant and an expired one say which they are", async () => {
    const { run, issue, clock } = setup();
    const g = issue({ max_uses: 1 });
    expect(codeOf(await run(call("note_add", { title: "t", body: "b" })))).toBe("ok");
    const spent = await run(call("note_add", { title: "t", body: "b" }));
    if (spent.ok) throw new Error("expected a refusal");
    expect(spent.error.message).toBe(`note.add needs a grant for agent claude: grant ${g.id} was spent (1 of 1 uses)`);
    const h = issue({ max_uses: 5 });
    clock.set(T0 + 300_000 + 120_000);
    const expired = await run(call("note_add", { title: "t", body: "b" }));
    if (expired.ok) throw new Error("expected a refusal");
    expect(expired.error.message).toBe(`note.add needs a grant for agent claude: grant ${h.id} expired 2m ago`);
  });

  test("a grant bound to exact arguments covers that call only, defaults filled", async () => {
    const { run, issue } = setup();
    const bound = argsDigest({ id: "a-1", signal: "TERM" });
    issue({ target: "proc.kill", args_digest: bound });
    expect(codeOf(await run(call("proc_kill", { pid: 999_999 })))).toBe("core.grant.required");
    issue({ target: "proc.kill", args_digest: argsDigest({ pid: 999_999, signal: "TERM" }) });
    // the grant matches; the process does not exist
    expect(codeOf(await run(call("proc_kill", { pid: 999_999 })))).toBe("proc.notfound");
    expect(codeOf(await run(call("proc_kill", { pid: 999_999, signal: "KILL" })))).toBe("core.grant.required");
  });

  test("a refusal before the gate spends nothing", async () => {
    const { run, issue, deps } = setup();
    const g = issue({ max_uses: 1 });
    expect(codeOf(await run(call("note_add", { title: "t", bogus: 1 })))).toBe("core.mcp.badargs");
    expect(codeOf(await run(call("note_add", { title: "t" })))).toBe("core.input.missing");
    expect(deps.gate().get(g.id)?.uses).toBe(0);
  });

  test("the ceiling holds at call time against a grant issued before the policy changed", async () => {
    const { run, issue, deps } = setup();
    const g = issue({ max_uses: 10 });
    mkdirSync(deps.dirs.config, { recursive: true });
    writeFileSync(join(deps.dirs.config, "policy.toml"), 'never = ["note.add"]\n');
    expect(codeOf(await run(call("note_add", { title: "t", body: "b" })))).toBe("core.grant.ceiling");
    writeFileSync(join(deps.dirs.config, "policy.toml"), "max_uses = 3\n");
    expect(codeOf(await run(call("note_add", { title: "t", body: "b" })))).toBe("core.grant.ceiling");
    expect(deps.gate().get(g.id)?.uses).toBe(0);
    // a free read is not the ceiling's to stop
    writeFileSync(join(deps.dirs.config, "policy.toml"), 'never = ["note"]\n');
    expect(codeOf(await run(call("note_list")))).toBe("ok");
  });
});

describe("the lock stage", () => {
  test("a lock stops the agent's calls, free reads included, and lifting it restores them", async () => {
    const { run, deps, clock } = setup();
    const l = deps
      .gate()
      .lock({ agent: "claude", target: null, issued_at: clock.now(), expires_at: null, issued_by: "ops" });
    const out = await run(call("sys_info"));
    if (out.ok) throw new Error("expected a refusal");
    expect(out.error.code).toBe("core.lock.locked");
    expect(out.error.hint).toContain(`\`rta lock lift ${l.id}\``);
    expect(codeOf(await run(call("sys_info", {}, "cursor")))).toBe("ok");
    deps.gate().lift({ id: l.id }, clock.now());
    expect(codeOf(await run(call("sys_info")))).toBe("ok");
  });

  test("a lock on an area or a capability stops only that", async () => {
    const { run, deps, clock } = setup();
    deps.gate().lock({
      agent: null,
      target: "note",
      issued_at: clock.now(),
      expires_at: clock.now() + 60_000,
      issued_by: "ops",
    });
    expect(codeOf(await run(call("note_list")))).toBe("core.lock.locked");
    expect(codeOf(await run(call("proc_list", { limit: 1 })))).toBe("ok");
    clock.set(T0 + 60_000);
    expect(codeOf(await run(call("note_list")))).toBe("ok");
  });

  test("a lock comes before the grant: a locked call spends nothing", async () => {
    const { run, deps, clock, issue } = setup();
    const g = issue({ max_uses: 1 });
    deps
      .gate()
      .lock({ agent: "claude", target: "note.add", issued_at: clock.now(), expires_at: null, issued_by: "ops" });
    expect(codeOf(await run(call("note_add", { title: "t", body: "b" })))).toBe("core.lock.locked");
    expect(deps.gate().get(g.id)?.uses).toBe(0);
  });
});

describe("the command in the hint", () => {
  test("quotes what a shell would split", () => {
    expect(shellWord("plain-id_1.2")).toBe("plain-id_1.2");
    expect(shellWord("it's mine")).toBe(`'it'\\''s mine'`);
    const q = {
      targets: [],
      agent: "claude",
      record: "a b",
      connection: "prod",
      profile: null,
      host: "example.test",
      hostRequired: false,
      args_digest: "",
      now: 0,
    };
    const cap = catalogue.byName("note.rm");
    if (!cap) throw new Error("no note.rm");
    expect(allowCommand(cap, q)).toBe(
      "rta grant allow note.rm 'a b' --agent claude --ttl 5m --host example.test --connection prod",
    );
    // a record that reads as an option comes after --, or the grant would be for every record
    expect(allowCommand(cap, { ...q, record: "--agent=claude", host: null, connection: null })).toBe(
      "rta grant allow note.rm --agent claude --ttl 5m -- --agent=claude",
    );
  });
});

describe("a record as it is compared", () => {
  test("a path is written plainly, a `..` kept; a record that is no path is left as sent", () => {
    const cat = catalogue;
    const write = cat.byName("fs.write");
    const rm = cat.byName("note.rm");
    if (!write || !rm) throw new Error("missing capability");
    expect(recordKey(write, "./notes//a.md/")).toBe("notes/a.md");
    expect(recordKey(write, "/srv/./x//y")).toBe("/srv/x/y");
    expect(recordKey(write, "link/../b")).toBe("link/../b");
    expect(recordKey(write, "./")).toBe(".");
    expect(recordKey(rm, "./a//b")).toBe("./a//b");
  });
});

describe("which grants can allow a call", () => {
  const needsNamedHost = (capability: string, input: string, value: string) => {
    const cap = catalogue.byName(capability);
    if (!cap) throw new Error(`no ${capability}`);
    return grantQuery(cap, { ...call(cap.tool), origin: agent }, { [input]: value }, T0).hostRequired;
  };

  test("an address only a grant naming it may reach, in any spelling, is kept from hostless grants", () => {
    for (const url of [
      "http://127.1/",
      "http://0x7f000001/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::1]/",
      "HTTP://10.0.0.1./",
    ])
      expect({ url, named: needsNamedHost("http.get", "url", url) }).toEqual({ url, named: true });
    expect(needsNamedHost("net.ping", "host", "169.254.169.254")).toBe(true);
    // RFC 6761: localhost and every name under it are loopback wherever they are looked up
    for (const url of ["http://localhost/", "http://LOCALHOST./", "http://a.b.localhost:8080/"])
      expect({ url, named: needsNamedHost("http.get", "url", url) }).toEqual({ url, named: true });
    expect(needsNamedHost("net.port", "host", "localhost.")).toBe(true);
    expect(needsNamedHost("net.port", "host", "0177.0.0.1")).toBe(true);
  });

  test("a public address, a name, and a name looked up rather than dialled are for any grant", () => {
    expect(needsNamedHost("http.get", "url", "http://192.0.2.7.example/")).toBe(false);
    expect(needsNamedHost("http.get", "url", "http://localhost.example/")).toBe(false);
    expect(needsNamedHost("http.get", "url", "http://notlocalhost/")).toBe(false);
    expect(needsNamedHost("http.get", "url", "http://8.8.8.8/")).toBe(false);
    expect(needsNamedHost("net.dns", "name", "127.0.0.1")).toBe(false);
    expect(needsNamedHost("net.dns", "name", "localhost")).toBe(false);
  });
});
