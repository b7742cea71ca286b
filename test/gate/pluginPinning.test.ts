/**
 * In process: a grant on a plugin capability covers only the binary it was
 * issued against. The capability here is a stand-in with a PluginRef (the
 * running plugin is plug-host's, tested end to end in test/e2e/pkg.test.ts).
 */
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { define } from "../../src/core/capability.ts";
import { object } from "../../src/core/result.ts";
import { planGrant, staleFix } from "../../src/gate/operator/grants.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { fileDigest } from "../../src/plugins/digest.ts";
import { grantFor, tempDir, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "t 1", session: "s1", transport: "memory" };

function memoPlugin() {
  const file = join(tempDir(), "rta-plugin-memo");
  writeFileSync(file, "#!/bin/sh\n");
  const digest = fileDigest(file).sha256;
  let ran = 0;
  const memo = (name: string, summary: string, safety: "read" | "write") =>
    define({
      name,
      summary,
      safety,
      inputs: { key: { type: "string", description: "k", required: true } },
      result: { shape: "object" },
      examples: [],
      async run(args) {
        ran++;
        return object({ key: args.key });
      },
    });
  const put = memo("memo.put", "keep a memo", "write");
  const get = memo("memo.get", "read a memo", "read");
  const ref = { name: "memo", version: "1.0.0", digest, file };
  const catalogue = catalogueOf([
    { ...put, plugin: ref },
    { ...get, plugin: ref },
  ]);
  return { file, digest, catalogue, ran: () => ran };
}

const call = (capability: string): Call => ({ capability, args: { key: "k" }, origin: agent });

describe("a grant on a plugin", () => {
  test("records the digest of the binary that described it, for a capability and for the plugin's area", () => {
    const { catalogue, digest } = memoPlugin();
    const deps = testDeps();
    expect(planGrant(deps, catalogue, { target: "memo.put", agent: "claude", ttl: "5m" }).row.digest).toBe(digest);
    expect(planGrant(deps, catalogue, { target: "memo", agent: "claude", ttl: "5m" }).row.digest).toBe(digest);
  });

  test("covers the binary it was issued against, and nothing once the binary is replaced", async () => {
    const { catalogue, digest, file, ran } = memoPlugin();
    const deps = testDeps();
    const grant = grantFor(deps, { target: "memo", digest });
    expect((await runCall(call("memo_put"), catalogue, deps)).ok).toBe(true);
    expect(ran()).toBe(1);
    expect(staleFix(catalogue, grant)).toBeUndefined();

    appendFileSync(file, "# changed\n");
    const outcome = await runCall(call("memo_put"), catalogue, deps);
    if (outcome.ok) throw new Error("expected a refusal");
    expect(outcome.error.code).toBe("core.grant.required");
    expect(outcome.error.message).toBe(
      `memo.put needs a grant for agent claude: grant ${grant.id} was issued for plugin memo as it was then`,
    );
    expect(outcome.error.hint).toContain("the plugin memo changed since the grant was issued");
    expect(outcome.error.hint).toContain("`rta pkg verify`");
    expect(outcome.error.hint).toContain("`rta grant allow memo.put --agent claude --ttl 5m`");
    expect(ran()).toBe(1);
    expect(staleFix(catalogue, grant)).toContain("changed since it was issued");

    // a free read of a binary that is not the one that described it does not run either
    const read = await runCall(call("memo_get"), catalogue, deps);
    if (read.ok) throw new Error("expected a refusal");
    expect(read.error.code).toBe("core.plugin.invalid");
    expect(ran()).toBe(1);
  });

  test("a grant issued for a built-in of the same name covers no plugin", async () => {
    const { catalogue } = memoPlugin();
    const deps = testDeps();
    const grant = grantFor(deps, { target: "memo", digest: null });
    const outcome = await runCall(call("memo_put"), catalogue, deps);
    if (outcome.ok) throw new Error("expected a refusal");
    expect(outcome.error.message).toContain(`grant ${grant.id} was issued for the built-in memo`);
    // nothing changed that `rta pkg verify` would show: the hint says the area became a plugin, and to grant again
    expect(outcome.error.hint).not.toContain("pkg verify");
    expect(outcome.error.hint).toContain("is a plugin now");
    expect(outcome.error.hint).toContain("`rta grant allow memo.put --agent claude --ttl 5m`");
    // the listing marks it too, installed or not
    expect(staleFix(catalogue, grant)).toBe(
      "issued for the built-in memo, a plugin now: it covers nothing; grant again",
    );
    expect(staleFix(builtinCatalogue(), grant)).toContain("memo is no built-in any more: it covers nothing");
    expect(staleFix(builtinCatalogue(), { ...grant, target: "fs" })).toBeUndefined();
  });

  test("a grant on a built-in records no digest, as before", () => {
    const deps = testDeps();
    expect(planGrant(deps, builtinCatalogue(), { target: "fs", agent: "claude", ttl: "5m" }).row.digest).toBeNull();
  });
});
