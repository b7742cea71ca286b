import { expect, test } from "bun:test";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import { lift, listLocks, lock, lockState } from "../../../src/gate/operator/locks.ts";
import { refusalOf, testDeps } from "../../support/fixtures.ts";

const catalogue = builtinCatalogue();

test("a lock on nothing named is on everything for every agent, until lifted", () => {
  const deps = testDeps();
  const { lock: l, now } = lock(deps, catalogue, {});
  expect(l).toMatchObject({ agent: null, target: null, issued_at: now, expires_at: null, lifted_at: null });
  expect(deps.gate().lockFor("anyone", ["sys.info", "sys"], now)?.id).toBe(l.id);
});

test("refuses a bad agent name, an unknown target and a bad duration, and sets nothing", () => {
  const deps = testDeps();
  expect(refusalOf(() => lock(deps, catalogue, { agent: "a b" })).code).toBe("core.input.invalid");
  expect(refusalOf(() => lock(deps, catalogue, { target: "fs_write" })).code).toBe("core.tool.unknown");
  expect(refusalOf(() => lock(deps, catalogue, { ttl: "soon" })).code).toBe("core.input.invalid");
  expect(deps.gate().locks()).toEqual([]);
});

test("lists each lock's state, and lifts an agent's own locks whatever the case they were set in", () => {
  const deps = testDeps();
  const mine = lock(deps, catalogue, { agent: "Claude", target: "fs", ttl: "1h" }).lock;
  const everyone = lock(deps, catalogue, { target: "proc" }).lock;
  expect(lift(deps, { agent: "claude" })).toBe(1);
  expect(lift(deps, { agent: "claude" })).toBe(0);
  expect(listLocks(deps).locks.map((l) => [l.id, l.state])).toEqual([
    [mine.id, "lifted"],
    [everyone.id, "active"],
  ]);
  expect(lockState(mine, (mine.expires_at as number) + 1)).toBe("expired");
});
