/**
 * audit.deps in process, over the fixture tree (one lockfile of each format,
 * each with a known-vulnerable and a clean package) against a stand-in for
 * osv.dev on 127.0.0.1: each vulnerable package found with its severity and
 * fix, each clean one absent, only names, versions and ecosystems sent, and
 * offline said, with every dependency still listed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../../src/capabilities/builtinCatalogue.ts";
import { type AgentOrigin, type Origin, person } from "../../../src/core/call.ts";
import type { TableResult } from "../../../src/core/result.ts";
import { runCall } from "../../../src/gate/pipeline.ts";
import { fixedClock, testDeps } from "../../support/fixtures.ts";
import { startOsv } from "../../support/osvStandIn.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };
const TREE = join(import.meta.dir, "../../fixtures/deps/tree");
const osv = startOsv();
afterAll(() => osv.stop());

async function audit(args: Record<string, unknown>, url = osv.url, origin: Origin = agent, policy = "") {
  const deps = testDeps();
  const root = join(deps.dirs.data, "..");
  cpSync(TREE, join(root, "proj"), { recursive: true });
  mkdirSync(deps.dirs.config, { recursive: true });
  if (policy !== "") writeFileSync(join(deps.dirs.config, "policy.toml"), policy);
  writeFileSync(join(deps.dirs.config, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${url}"\n`);
  const out = await runCall(
    {
      capability: origin.kind === "person" ? "audit.deps" : "audit_deps",
      args: { path: join(root, "proj"), ...args },
      origin,
    },
    builtinCatalogue(),
    deps,
  );
  if (!out.ok) throw new Error(`${out.error.code}: ${out.error.message}`);
  const t = out.value as TableResult;
  const rows = t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])));
  return { t, rows, root };
}

const VULNERABLE: [string, string, string, string][] = [
  ["lodash", "GHSA-35jh-r3h4-6jhm", "4.17.21", "npm/package-lock.json"],
  ["lodash", "GHSA-29mw-wpgm-hmr9", "4.17.21", "npm/package-lock.json"],
  ["minimist", "GHSA-xvch-5gv4-984h", "1.2.6", "pnpm/pnpm-lock.yaml"],
  ["node-fetch", "GHSA-r683-j2x4-v87g", "2.6.7", "yarn1/yarn.lock"],
  ["axios", "GHSA-cph5-m8f7-6c5x", "0.21.2", "berry/yarn.lock"],
  ["semver", "GHSA-c2qf-rxjj-qqgw", "7.5.2", "bun/bun.lock"],
  ["requests", "GHSA-x84v-xcm2-53pg", "2.20.0", "py-req/requirements.txt"],
  ["urllib3", "GHSA-q2q7-5pp4-w6pg", "1.26.5", "poetry/poetry.lock"],
  ["jinja2", "GHSA-g3rq-g295-4j3m", "2.11.3", "uv/uv.lock"],
  ["pyyaml", "GHSA-8q59-q68h-6hv4", "5.4", "pipenv/Pipfile.lock"],
  ["golang.org/x/text", "GO-2021-0113", "0.3.7", "go/go.sum"],
  ["smallvec", "RUSTSEC-2021-0003", "1.6.1", "rust/Cargo.lock"],
  ["nokogiri", "GHSA-cgx6-hpwq-fhv5", "1.13.5", "ruby/Gemfile.lock"],
  ["guzzlehttp/guzzle", "GHSA-25mq-v84q-4j7r", "7.4.5", "php/composer.lock"],
  ["org.apache.logging.log4j:log4j-core", "GHSA-jfh8-c2jp-5v3q", "2.15.0", "maven/pom.xml"],
];

describe("audit.deps against the stand-in", () => {
  test("each vulnerable package is found with its fix and file, and no clean one is listed", async () => {
    const { rows, root } = await audit({});
    const got = rows.map((r) => [r.package, r.id, r.fixed, String(r.file).slice(join(root, "proj").length + 1)]);
    expect(got.sort()).toEqual([...VULNERABLE].sort());
  });

  test("severity: a v3 vector scored, the database's word without one, none for a Go record", async () => {
    const { rows } = await audit({});
    const by = (id: string) => rows.find((r) => r.id === id) as Record<string, unknown>;
    expect(by("GHSA-jfh8-c2jp-5v3q")).toMatchObject({ severity: "critical", score: 10, ecosystem: "Maven" });
    expect(by("GHSA-35jh-r3h4-6jhm")).toMatchObject({ severity: "high", score: 7.2, version: "4.17.20" });
    expect(by("GHSA-cgx6-hpwq-fhv5")).toMatchObject({ severity: "high", score: null, cvss: null });
    expect(by("GHSA-25mq-v84q-4j7r")).toMatchObject({ severity: "high", score: null });
    expect(String(by("GHSA-25mq-v84q-4j7r").cvss)).toStartWith("CVSS:4.0/");
    expect(by("GO-2021-0113")).toMatchObject({
      severity: null,
      summary: "Out-of-bounds read in golang.org/x/text/language",
    });
    expect(rows[0]?.severity).toBe("critical");
    expect(rows.at(-1)?.severity).toBeNull();
  });

  test("--all lists each clean dependency once, with no id", async () => {
    const { rows } = await audit({ all: true });
    const clean = rows.filter((r) => r.id === null).map((r) => r.package);
    expect(clean).toContain("is-number");
    expect(clean).toContain("junit:junit");
    expect(clean).not.toContain("org.slf4j:slf4j-api"); // its version is a parent's: not a pin
    expect(clean).not.toContain("lodash");
    expect(clean.length).toBe(32 - 14); // 14 packages carry the 15 vulnerabilities
  });

  test("what leaves the machine: names, versions and ecosystems in one batch, then each id once", async () => {
    const before = osv.asked.length;
    await audit({});
    const asked = osv.asked.slice(before);
    const batches = asked.filter((a) => a.path === "/v1/querybatch");
    expect(batches.length).toBe(1);
    const body = JSON.parse(batches[0]?.body ?? "{}");
    for (const q of body.queries) {
      expect(Object.keys(q).sort()).toEqual(["package", "version"]);
      expect(Object.keys(q.package).sort()).toEqual(["ecosystem", "name"]);
    }
    expect(body.queries.length).toBe(32);
    expect(JSON.stringify(body)).not.toContain("proj");
    const details = asked.filter((a) => a.path.startsWith("/v1/vulns/")).map((a) => a.path);
    expect(details.length).toBe(15);
    expect(new Set(details).size).toBe(15);
  });

  test("osv unreachable: every dependency listed with no id, and a warning says why", async () => {
    const down = startOsv();
    const url = down.url;
    await down.stop();
    const { t, rows } = await audit({}, url);
    expect(rows.length).toBe(32);
    expect(rows.every((r) => r.id === null)).toBe(true);
    expect(t.warnings?.map((w) => w.code)).toEqual(["audit.deps.offline"]);
    expect(t.warnings?.[0]?.message).toContain("could not be reached");
    expect(t.warnings?.[0]?.message).toContain("no vulnerability was checked");
  });

  test("osv answering an error: the same, said", async () => {
    const bad = startOsv([], { failBatch: 503 });
    const { t, rows } = await audit({}, bad.url);
    await bad.stop();
    expect(rows.length).toBe(32);
    expect(t.warnings?.[0]?.message).toContain("HTTP 503");
  });

  test("a lockfile that does not parse is said, and the others still checked", async () => {
    const deps = testDeps();
    const root = join(deps.dirs.data, "..", "p");
    mkdirSync(join(root, "a"), { recursive: true });
    writeFileSync(join(root, "a", "Cargo.lock"), "[[package]\nname = ");
    cpSync(join(TREE, "npm"), join(root, "b"), { recursive: true });
    mkdirSync(deps.dirs.config, { recursive: true });
    writeFileSync(join(deps.dirs.config, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${osv.url}"\n`);
    const out = await runCall(
      { capability: "audit_deps", args: { path: root }, origin: agent },
      builtinCatalogue(),
      deps,
    );
    if (!out.ok) throw new Error(out.error.message);
    const t = out.value as TableResult;
    expect(t.rows.length).toBe(2);
    expect(t.warnings?.map((w) => w.code)).toEqual(["audit.deps.unreadable"]);
  });

  test("osv down two days after a call: the kept answers are given, and said to be old", async () => {
    const up = startOsv();
    const clock = fixedClock(1_700_000_000_000);
    const deps = testDeps({ clock });
    const root = join(deps.dirs.data, "..");
    cpSync(TREE, join(root, "proj"), { recursive: true });
    mkdirSync(deps.dirs.config, { recursive: true });
    writeFileSync(join(deps.dirs.config, "config.toml"), `[defaults."audit.deps"]\nosv_url = "${up.url}"\n`);
    const call = { capability: "audit_deps", args: { path: join(root, "proj") }, origin: agent };
    const first = await runCall(call, builtinCatalogue(), deps);
    await up.stop();
    clock.set(1_700_000_000_000 + 2 * 86_400_000);
    const again = await runCall(call, builtinCatalogue(), deps);
    if (!first.ok || !again.ok) throw new Error("refused");
    const t = again.value as TableResult;
    expect(t.rows.length).toBe(15);
    expect(t.warnings).toEqual([
      {
        code: "audit.deps.stale",
        message: "osv.dev could not be reached: the vulnerabilities listed are from its answers of 48 hours ago",
      },
    ]);
  });

  test("a policy's never naming it, or its area, has no effect on a free read", async () => {
    for (const never of ["audit.deps", "audit"]) {
      const { rows } = await audit({}, osv.url, agent, `never = ["${never}"]\n`);
      expect(rows.length).toBe(15);
    }
  });

  test("a person's call runs as an agent's does", async () => {
    const { rows } = await audit({}, osv.url, person);
    expect(rows.length).toBe(15);
  });

  test("an agent may not aim it: osv_url sent by an agent is refused", async () => {
    const deps = testDeps();
    const out = await runCall(
      {
        capability: "audit_deps",
        args: { path: join(deps.dirs.data, ".."), osv_url: "http://127.0.0.1:9" },
        origin: agent,
      },
      builtinCatalogue(),
      deps,
    );
    expect(out.ok).toBe(false);
  });
});
