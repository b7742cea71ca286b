import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { listTokens, newToken, revokeTokens, tokenTtl } from "../../../src/gate/operator/tokens.ts";
import { hashToken } from "../../../src/gate/store/tokens.ts";
import { refusalOf, testDeps } from "../../support/fixtures.ts";

test("a new token is handed back once; only its hash is kept, and a listing carries not even that", () => {
  const deps = testDeps();
  const { token, row } = newToken(deps, { agent: "claude", ttl: "1h" });
  expect(token).toMatch(/^rta_[A-Za-z0-9_-]{43}$/);
  expect(row.hash).toBe(hashToken(token));
  expect(deps.gate().tokenByHash(hashToken(token), deps.clock.now())?.id).toBe(row.id);
  const { tokens } = listTokens(deps);
  expect(tokens).toEqual([
    {
      id: row.id,
      agent: "claude",
      issued_at: row.issued_at,
      expires_at: row.issued_at + 3_600_000,
      issued_by: row.issued_by,
      revoked_at: null,
      state: "live",
    },
  ]);
  expect(JSON.stringify(tokens)).not.toContain(row.hash);
});

test("refuses a bad agent name and a bad duration, and makes nothing", () => {
  const deps = testDeps();
  expect(refusalOf(() => newToken(deps, { agent: "" })).code).toBe("core.input.invalid");
  expect(refusalOf(() => newToken(deps, { agent: "claude", ttl: "-1h" })).code).toBe("core.input.invalid");
  // an empty duration (a script's unset variable) is none, not "for good"
  expect(refusalOf(() => newToken(deps, { agent: "claude", ttl: "" })).code).toBe("core.input.invalid");
  expect(listTokens(deps).tokens).toEqual([]);
});

test("revoking says how many were live, and the token no longer lets anyone in", () => {
  const deps = testDeps();
  const { token } = newToken(deps, { agent: "claude" });
  expect(revokeTokens(deps, { agent: "CLAUDE" })).toBe(1);
  expect(revokeTokens(deps, { all: true })).toBe(0);
  expect(deps.gate().tokenByHash(hashToken(token), deps.clock.now())).toBeUndefined();
  expect(listTokens(deps).tokens[0]?.state).toBe("revoked");
});

test("a token lasts 90 days unless --ttl says otherwise; the policy's max_token_ttl shortens the default and caps --ttl", () => {
  const deps = testDeps();
  const day = 86_400_000;
  const plain = newToken(deps, { agent: "claude" }).row;
  expect((plain.expires_at as number) - plain.issued_at).toBe(90 * day);
  // each with its own policy file, written before it is first read (a policy is looked at again only so often)
  const withPolicy = (text: string) => {
    const d = testDeps();
    mkdirSync(d.dirs.config, { recursive: true });
    writeFileSync(d.policy.file, text);
    return d;
  };
  const capping = withPolicy('max_token_ttl = "30d"\n');
  const capped = newToken(capping, { agent: "claude" }).row;
  expect((capped.expires_at as number) - capped.issued_at).toBe(30 * day);
  expect(tokenTtl(capping, "30d")).toBe(30 * day);
  const over = refusalOf(() => newToken(capping, { agent: "claude", ttl: "31d" }));
  expect(over).toMatchObject({
    code: "core.grant.ceiling",
    message: "the token would last longer than the team policy's max_token_ttl (30d)",
    hint: "make it with --ttl 30d or less",
  });
  expect(listTokens(capping).tokens).toHaveLength(1);
  const bad = withPolicy("max_token_ttl = 30\n");
  expect(refusalOf(() => newToken(bad, { agent: "claude" })).code).toBe("core.policy.unreadable");
});
