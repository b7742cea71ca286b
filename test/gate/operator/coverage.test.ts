/**
 * grantCoverage: what a grant would cover, priced before it is issued. Pure:
 * the plan is checked by planGrant and nothing is written.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { grantCoverage } from "../../../src/gate/operator/coverage.ts";
import { type GrantRequest, planGrant } from "../../../src/gate/operator/grants.ts";
import { testDeps } from "../../support/fixtures.ts";
import { noteCatalogue } from "../../support/plugins.ts";

const catalogue = await noteCatalogue();
const priced = (over: Partial<GrantRequest> & { target: string }, deps = testDeps()) =>
  grantCoverage(catalogue, planGrant(deps, catalogue, { agent: "claude", ttl: "5m", ...over }));

describe("grantCoverage", () => {
  test("an area expands to its capabilities, each with its safety class, and is destructive when one is", () => {
    const c = priced({ target: "note" });
    const names = catalogue
      .all()
      .filter((x) => x.area === "note")
      .map((x) => x.name);
    expect(c.capabilities.map((x) => x.name)).toEqual(names);
    expect(c.capabilities).toContainEqual({ name: "note.rm", safety: "destructive" });
    expect(c.capabilities).toContainEqual({ name: "note.add", safety: "write" });
    expect(c).toMatchObject({ target: "note", hosts: null, uses: null, ttlMs: 300_000, destructive: true });
  });

  test("one capability covers itself; a read that reaches says any host unless one is named", () => {
    expect(priced({ target: "note.add", maxUses: "1" })).toMatchObject({
      capabilities: [{ name: "note.add", safety: "write" }],
      uses: 1,
      destructive: false,
    });
    expect(priced({ target: "http.get" }).hosts).toBe("any");
    expect(priced({ target: "http.get", host: "Status.Example.com" }).hosts).toBe("status.example.com");
  });

  test("the uses are the team ceiling's when the request names none", () => {
    const deps = testDeps();
    mkdirSync(dirname(deps.policy.file), { recursive: true });
    writeFileSync(deps.policy.file, "max_uses = 3\n");
    expect(priced({ target: "note.rm" }, deps).uses).toBe(3);
    expect(deps.gate().list()).toEqual([]);
  });
});
