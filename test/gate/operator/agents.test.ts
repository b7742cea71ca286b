/**
 * Which agent a grant that names none is for: the one agent registered (a
 * token not revoked, the team policy's list) or seen in the record; none or
 * several is core.input.missing, naming them.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { knownAgents, soleAgent } from "../../../src/gate/operator/agents.ts";
import { newToken, revokeTokens } from "../../../src/gate/operator/tokens.ts";
import { refusalOf, testDeps } from "../../support/fixtures.ts";

test("the agents known are the live tokens', the policy's and the record's, each once, sorted", () => {
  const deps = testDeps();
  expect(knownAgents(deps, [])).toEqual([]);
  newToken(deps, { agent: "cursor" });
  newToken(deps, { agent: "gone" });
  revokeTokens(deps, { agent: "gone" });
  mkdirSync(deps.dirs.config, { recursive: true });
  writeFileSync(deps.policy.file, 'agents = ["claude", "cursor"]\n');
  // a name no agent can have (a hand-written record) is left out, not offered as the one meant
  expect(knownAgents(deps, new Set(["zed", "claude", "bad name", "claude\u200b"]))).toEqual([
    "claude",
    "cursor",
    "zed",
  ]);
});

test("exactly one is the one; none or several is core.input.missing with the command to type", () => {
  expect(soleAgent(["claude"], "rta grant allow note --ttl 30m")).toBe("claude");
  const none = refusalOf(() => soleAgent([], "rta grant allow note --ttl 30m"));
  expect(none).toMatchObject({
    code: "core.input.missing",
    message: "the grant names no agent, and none is registered or seen in the record",
    hint: "name one with --agent: rta grant allow note --ttl 30m --agent claude",
  });
  const two = refusalOf(() => soleAgent(["claude", "cursor"], "rta grant allow note --ttl 8h"));
  expect(two.message).toBe("the grant names no agent, and 2 are registered or seen: claude, cursor");
  expect(two.hint).toBe("name one with --agent: rta grant allow note --ttl 8h --agent claude");
});
