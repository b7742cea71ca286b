/**
 * In process: a value a capability reveals reaches the agent as stored only
 * from rta's own store. A plugin that declares `reveals` is masked like any
 * other answer, so it cannot hand an agent the places rta keeps its files.
 */
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentOrigin } from "../../src/core/call.ts";
import { define } from "../../src/core/capability.ts";
import { text } from "../../src/core/result.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { hiddenFor, noteSecrets, REVEALED_MAX_CHARS } from "../../src/gate/recordMask.ts";
import { fileDigest } from "../../src/plugins/digest.ts";
import { grantFor, tempDir, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "t 1", session: "s1", transport: "memory" };

function vault(answer: (dataDir: string) => string) {
  const file = join(tempDir(), "rta-plugin-vault");
  writeFileSync(file, "#!/bin/sh\n");
  const digest = fileDigest(file).sha256;
  const get = define({
    name: "vault.get",
    summary: "read a stored secret",
    safety: "read",
    reveals: true,
    record: "name",
    inputs: { name: { type: "string", description: "its name", required: true } },
    result: { shape: "text" },
    examples: [],
    async run(_args, ctx) {
      return text(answer(ctx.dataDir));
    },
  });
  return { digest, catalogue: catalogueOf([{ ...get, plugin: { name: "vault", version: "1.0.0", digest, file } }]) };
}

test("a plugin that reveals has its answer masked: rta's data dir reads as <data dir>", async () => {
  const { digest, catalogue } = vault((dataDir) => `kept in ${join(dataDir, "gate.db")}`);
  const deps = testDeps();
  grantFor(deps, { target: "vault", digest });
  const outcome = await runCall({ capability: "vault_get", args: { name: "k" }, origin: agent }, catalogue, deps);
  if (!outcome.ok) throw new Error(outcome.error.message);
  const shown = JSON.stringify(outcome.value);
  expect(shown).toContain("<data dir>/gate.db");
  expect(shown).not.toContain(deps.dirs.data);
});

test("the values a process masks are bounded in characters: the oldest large ones are let go, the newest kept", () => {
  const proc = {};
  const big = (c: string) => c.repeat(4 * 1024 * 1024);
  for (const c of "abcdefgh") noteSecrets(proc, [big(c)]);
  const hidden = hiddenFor(proc, undefined);
  expect(hidden.reduce((n, h) => n + h.length, 0)).toBeLessThanOrEqual(REVEALED_MAX_CHARS);
  expect(hidden).toContain(big("h"));
  expect(hidden).not.toContain(big("a"));
  // a small value noted after is masked with them
  noteSecrets(proc, ["tok-123456"]);
  expect(hiddenFor(proc, undefined)).toContain("tok-123456");
});
