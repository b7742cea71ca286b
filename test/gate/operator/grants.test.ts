import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Deps } from "../../../src/gate/deps.ts";
import { grantState } from "../../../src/gate/gateStore.ts";
import { type GrantRequest, issueGrant, listGrants, revoke } from "../../../src/gate/operator/grants.ts";
import { grantFor, refusalOf, testDeps } from "../../support/fixtures.ts";
import { noteCatalogue } from "../../support/plugins.ts";

const catalogue = await noteCatalogue();
const ask = (over: Partial<GrantRequest> = {}): GrantRequest => ({
  target: "note.rm",
  agent: "claude",
  ttl: "5m",
  ...over,
});

/** The refusal `act` throws, as code and message; fails the test when it throws none. */
function refusal(act: () => unknown): { code: string; message: string } {
  const { code, message } = refusalOf(act);
  return { code, message };
}

function withPolicy(deps: Deps, text: string): Deps {
  mkdirSync(dirname(deps.policy.file), { recursive: true });
  writeFileSync(deps.policy.file, text);
  return deps;
}

describe("issueGrant", () => {
  test("issues what was asked, narrowed and bounded, by this user, for this build", () => {
    const deps = testDeps();
    const { grant, now } = issueGrant(deps, catalogue, ask({ record: "./a", maxUses: "2" }));
    expect(now).toBe(deps.clock.now());
    expect(grant).toMatchObject({ target: "note.rm", record: "./a", agent: "claude", max_uses: 2, uses: 0 });
    expect(grant.expires_at - grant.issued_at).toBe(300_000);
    expect(grant.issued_by).not.toBe("");
    expect(grant.build).toStartWith("rta ");
    expect(deps.gate().get(grant.id)?.id).toBe(grant.id);
  });

  test("refuses the person's input before anything is written", () => {
    const deps = testDeps();
    const cases: [Partial<GrantRequest>, string, string][] = [
      [{ target: "note.nope" }, "core.tool.unknown", 'no capability or area is named "note.nope"'],
      [{ agent: "no spaces" }, "core.input.invalid", '--agent "no spaces" is not an agent name'],
      [{ maxUses: "two" }, "core.input.invalid", '--max-uses "two" is not a whole number'],
      [{ maxUses: "0" }, "core.input.range", '--max-uses is "0"'],
      [
        { target: "sys.info", record: "x" },
        "core.input.invalid",
        "sys.info takes no path, id or key to narrow a grant to",
      ],
      [{ record: " " }, "core.input.invalid", "the id is empty"],
      [
        { connection: "prod" },
        "core.input.invalid",
        "--connection narrows a grant for calls through a profile, and names none",
      ],
      [{ host: "example.com" }, "core.input.invalid", "note.rm reaches no host, so --host would narrow nothing"],
      [
        { target: "http.get", host: "https://example.com/x" },
        "core.input.invalid",
        '--host "https://example.com/x" is not a host name',
      ],
      [
        { target: "note", args: "{}" },
        "core.input.invalid",
        "--args binds a grant to one call of one capability, not an area",
      ],
      [{ args: "{" }, "core.input.invalid", "--args is not JSON"],
    ];
    for (const [over, code, message] of cases)
      expect(refusal(() => issueGrant(deps, catalogue, ask(over)))).toEqual({ code, message });
    expect(deps.gate().list()).toEqual([]);
  });

  test("the host alone is kept, and --args binds the grant to the exact call's digest", () => {
    const deps = testDeps();
    expect(issueGrant(deps, catalogue, ask({ target: "http.get", host: "Example.COM" })).grant.host).toBe(
      "example.com",
    );
    const bound = issueGrant(deps, catalogue, ask({ args: '{"id":"n1"}' })).grant;
    expect(bound.args_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  test("the team ceiling refuses what it caps, and gives its max_uses to a grant that names none", () => {
    const never = withPolicy(testDeps(), 'never = ["note"]');
    expect(refusal(() => issueGrant(never, catalogue, ask())).code).toBe("core.grant.ceiling");
    const capped = withPolicy(testDeps(), 'max_ttl = "1m"\nmax_uses = 3');
    expect(refusal(() => issueGrant(capped, catalogue, ask())).message).toBe(
      "the grant would last longer than the team policy's max_ttl",
    );
    expect(issueGrant(capped, catalogue, ask({ ttl: "1m" })).grant.max_uses).toBe(3);
    const unreadable = withPolicy(testDeps(), "max_uses = 0");
    expect(refusal(() => issueGrant(unreadable, catalogue, ask())).code).toBe("core.policy.unreadable");
    expect(never.gate().list()).toEqual([]);
  });
});

describe("listing and revoking", () => {
  test("lists with each grant's state, one agent's whatever its case, and refuses a name no agent has", () => {
    const deps = testDeps();
    const a = issueGrant(deps, catalogue, ask({ agent: "Claude" })).grant;
    issueGrant(deps, catalogue, ask({ agent: "cursor" }));
    const { grants } = listGrants(deps, "claude");
    expect(grants.map((g) => [g.id, g.state])).toEqual([[a.id, "live"]]);
    expect(listGrants(deps, undefined).grants).toHaveLength(2);
    expect(refusal(() => listGrants(deps, "")).code).toBe("core.input.invalid");
  });

  test("revoke says how many were live, and a grant's state follows", () => {
    const deps = testDeps();
    const g = issueGrant(deps, catalogue, ask()).grant;
    expect(revoke(deps, { id: g.id })).toBe(1);
    expect(revoke(deps, { id: g.id })).toBe(0);
    expect(grantState(deps.gate().get(g.id) ?? g, deps.clock.now())).toBe("revoked");
    expect(grantState({ ...g, max_uses: 1, uses: 1 }, g.issued_at)).toBe("spent");
    expect(grantState(g, g.expires_at)).toBe("expired");
  });
});

describe("an --args grant as the person wrote it", () => {
  test("the arguments are kept as written beside the digest, and an older grant without them has none", () => {
    const deps = testDeps();
    const { grant } = issueGrant(deps, catalogue, {
      target: "note.rm",
      agent: "claude",
      ttl: "5m",
      args: '{ "id" : "x" }',
    });
    const older = grantFor(deps, { target: "note.rm", args_digest: "ab".repeat(32) });
    const listed = listGrants(deps, undefined).grants;
    expect(listed.map((g) => [g.id, g.args])).toEqual([
      [grant.id, '{"id":"x"}'],
      [older.id, null],
    ]);
    expect(listed[0]?.args_digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
