/**
 * In process: kv.set's value, a secret input, never reaches the record or an
 * error, and a value kv.get revealed is masked in every record line after it.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateX25519Identity } from "age-encryption";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin } from "../../../src/core/call.ts";
import { person } from "../../../src/core/call.ts";
import type { Deps } from "../../../src/gate/deps.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { grantFor, tempDir, testDeps } from "../../support/fixtures.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
const catalogue = builtinCatalogue();
const SECRET = "tiger-lily-77-shh";

async function kvDeps(): Promise<Deps & { record: { lines: unknown[] } }> {
  const deps = testDeps();
  const identity = join(tempDir(), "id.txt");
  writeFileSync(identity, `${await generateX25519Identity()}\n`, { mode: 0o600 });
  deps.dirs = { ...deps.dirs, identity };
  return deps;
}

const call = (
  deps: Deps,
  capability: string,
  args: Record<string, unknown>,
  origin: AgentOrigin | typeof person = agent,
) => runCall({ capability, args, origin }, catalogue, deps);

describe("secrets in the record", () => {
  test("kv.set's value is in no record line, even when the call fails after the grant", async () => {
    const deps = await kvDeps();
    grantFor(deps, { target: "kv.set" });
    expect((await call(deps, "kv_set", { name: "a", value: SECRET })).ok).toBe(true);
    // refused by the capability (a bad name): the error says nothing of the value either
    const bad = await call(deps, "kv_set", { name: "..", value: SECRET });
    expect(bad.ok).toBe(false);
    expect(JSON.stringify(bad)).not.toContain(SECRET);
    // the agent put the value in an argument's name: masked in the line, as the value of a secret input
    const named = await call(deps, "kv_set", { name: "b", value: SECRET, [SECRET]: 1 });
    expect(named.ok).toBe(false);
    if (!named.ok) expect(named.error.message).not.toContain(SECRET);
    expect(JSON.stringify(deps.record.lines)).not.toContain(SECRET);
    expect(JSON.stringify(deps.record.lines)).toContain("***");
  });

  test("a value kv.get revealed is the agent's as stored, and masked in every line after", async () => {
    const deps = await kvDeps();
    // stored by a person: credential-shaped, which redaction would mask in any other answer
    const url = `postgres://app:${SECRET}@db.internal/prod`;
    expect((await call(deps, "kv.set", { name: "db", value: url }, person)).ok).toBe(true);
    grantFor(deps, { target: "kv.get", record: "db" });
    const got = await call(deps, "kv_get", { name: "db" });
    expect(got).toEqual({ ok: true, value: { type: "text", text: url } });
    // the agent repeats the value where a line keeps what it sent: an error's message, a tool's name
    await call(deps, "fs_read", { path: `/nowhere/${url}` });
    await call(deps, `kv_${url}`, {});
    const after = JSON.stringify(deps.record.lines);
    expect(after).not.toContain(SECRET);
    expect(after).toContain("kv_***");
  });

  test("a short value is not masked everywhere it appears", async () => {
    const deps = await kvDeps();
    expect((await call(deps, "kv.set", { name: "n", value: "80" }, person)).ok).toBe(true);
    grantFor(deps, { target: "kv.get" });
    expect((await call(deps, "kv_get", { name: "n" })).ok).toBe(true);
    await call(deps, "proc_list", { limit: 80 });
    expect(JSON.stringify(deps.record.lines)).not.toContain("***");
  });
});
