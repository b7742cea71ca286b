import { describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RtaError } from "../../src/core/errors.ts";
import { RECHECK_MS } from "../../src/core/recheck.ts";
import { checkCeiling, NO_POLICY, PolicySource, parsePolicy } from "../../src/gate/policy.ts";
import { tempDir } from "../support/fixtures.ts";

const shape = { targets: ["note.rm", "note"], agent: "claude", ttlMs: 300_000, maxUses: 1 };

describe("the policy file", () => {
  test("reads never, max_ttl, max_uses, agents and max_token_ttl", () => {
    const text = 'never = ["note.rm"]\nmax_ttl = "1h"\nmax_uses = 5\nagents = ["claude"]\nmax_token_ttl = "30d"\n';
    expect(parsePolicy(text)).toEqual({
      never: ["note.rm"],
      maxTtl: 3_600_000,
      maxUses: 5,
      agents: ["claude"],
      maxTokenTtl: 30 * 86_400_000,
    });
  });

  test("reads where a confirm-list call is asked: the client or the operator", () => {
    expect(parsePolicy('consent = "operator"').consent).toBe("operator");
    expect(parsePolicy('consent = "client"').consent).toBe("client");
    expect(() => parsePolicy('consent = "terminal"')).toThrow(/consent must be "client" or "operator"/);
  });

  test("refuses what it cannot take, naming the key", () => {
    expect(() => parsePolicy('never = "x"')).toThrow(/never must be a list/);
    expect(() => parsePolicy('max_ttl = "soon"')).toThrow(/max_ttl/);
    expect(() => parsePolicy('max_ttl = "36501d"')).toThrow(/max_ttl "36501d" is longer than 36500d/);
    expect(() => parsePolicy("max_uses = 0")).toThrow(/max_uses/);
    // max_token_ttl is held as max_ttl is
    expect(() => parsePolicy('max_token_ttl = "soon"')).toThrow(/max_token_ttl "soon" is not a duration such as "30d"/);
    expect(() => parsePolicy("max_token_ttl = 30")).toThrow(/max_token_ttl must be a duration/);
    expect(() => parsePolicy('max_token_ttl = "36501d"')).toThrow(/max_token_ttl "36501d" is longer than 36500d/);
    expect(() => parsePolicy("nevr = []")).toThrow(/no setting "nevr"/);
    expect(() => parsePolicy("[[[")).toThrow(/not TOML/);
    // compared exactly, so a name spelled as no capability is would stop nothing
    for (const slip of ["fs_write", "FS.WRITE", "fs.write ", "", "fs..write"])
      expect(() => parsePolicy(`never = [${JSON.stringify(slip)}]`)).toThrow(/no capability or area is called/);
    expect(parsePolicy('never = ["fs", "fs.write", "my-plugin.do.it"]').never).toHaveLength(3);
  });

  test("is read again when the file changes, looked at once per RECHECK_MS, and a missing file is no ceiling", () => {
    const dir = tempDir();
    let now = 0;
    const src = new PolicySource(join(dir, "policy.toml"), () => now);
    expect(src.current()).toBe(NO_POLICY);
    writeFileSync(join(dir, "policy.toml"), 'never = ["a"]\n');
    // within the bound the last look stands; past it the edit holds
    now += RECHECK_MS - 1;
    expect(src.current()).toBe(NO_POLICY);
    now += 1;
    expect(src.current().never).toEqual(["a"]);
    writeFileSync(join(dir, "policy.toml"), 'never = ["a", "b"]\n');
    utimesSync(join(dir, "policy.toml"), new Date(), new Date(Date.now() + 5000));
    now += RECHECK_MS;
    expect(src.current().never).toEqual(["a", "b"]);
    rmSync(join(dir, "policy.toml"));
    now += RECHECK_MS;
    expect(src.current()).toBe(NO_POLICY);
  });

  test("a directory in the file's place refuses as unreadable, not as an internal error", () => {
    const dir = tempDir();
    mkdirSync(join(dir, "policy.toml"));
    const src = new PolicySource(join(dir, "policy.toml"));
    let thrown: unknown;
    try {
      src.current();
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(RtaError);
    expect((thrown as RtaError).code).toBe("core.policy.unreadable");
    expect((thrown as RtaError).message).toBe("the team policy cannot be read: it is a directory");
  });
});

describe("the ceiling", () => {
  const code = (fn: () => void) => {
    try {
      fn();
    } catch (err) {
      return (err as { code: string; message: string }).code;
    }
    return "passed";
  };

  test("never reaches a capability or its whole area", () => {
    expect(code(() => checkCeiling({ never: ["note.rm"] }, shape))).toBe("core.grant.ceiling");
    expect(code(() => checkCeiling({ never: ["note"] }, shape))).toBe("core.grant.ceiling");
    expect(code(() => checkCeiling({ never: ["note.add"] }, shape))).toBe("passed");
  });

  test("agents, max_ttl and max_uses cap the grant", () => {
    expect(code(() => checkCeiling({ never: [], agents: ["cursor"] }, shape))).toBe("core.grant.ceiling");
    expect(code(() => checkCeiling({ never: [], maxTtl: 60_000 }, shape))).toBe("core.grant.ceiling");
    expect(code(() => checkCeiling({ never: [], maxUses: 3 }, { ...shape, maxUses: 5 }))).toBe("core.grant.ceiling");
    expect(code(() => checkCeiling({ never: [], maxUses: 3 }, { ...shape, maxUses: null }))).toBe("core.grant.ceiling");
    expect(code(() => checkCeiling({ never: [], maxUses: 3, maxTtl: 600_000, agents: ["claude"] }, shape))).toBe(
      "passed",
    );
  });
});
