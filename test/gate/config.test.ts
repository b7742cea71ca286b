/**
 * Config, profiles and connections: every call runs with the operator's
 * settings and is held to them, each behaviour with its code and its place in
 * the pipeline's order.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import type { AgentOrigin, Call } from "../../src/core/call.ts";
import { define } from "../../src/core/capability.ts";
import { ConfigSource, parseConfig } from "../../src/core/config.ts";
import { RECHECK_MS } from "../../src/core/recheck.ts";
import { object } from "../../src/core/result.ts";
import { publishedSchema } from "../../src/core/schema.ts";
import type { Deps } from "../../src/gate/deps.ts";
import type { NewGrant } from "../../src/gate/gateStore.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { grantFor, testDeps } from "../support/fixtures.ts";
import { catalogueOf } from "../support/validators.ts";

const agent: AgentOrigin = { kind: "agent", name: "claude", client: "c", session: "s", transport: "memory" };

/** A capability with every kind of input: one config may fill, one a profile sets, one only the operator gives. */
const kubePods = define({
  name: "kube.pods",
  summary: "List pods",
  safety: "read",
  inputs: {
    namespace: { type: "string", description: "the namespace", required: true, profile: true },
    context: { type: "string", description: "the cluster context", required: true, operatorOnly: true },
    limit: { type: "integer", description: "how many", required: true, range: [1, 100] },
    output: { type: "string", description: "how", options: ["wide", "short"], default: "short" },
  },
  result: { shape: "object" },
  examples: [],
  run: async (args) => object({ ...args }),
});
const catalogue = catalogueOf([kubePods]);

function setup(configText?: string) {
  const deps = testDeps();
  mkdirSync(deps.dirs.config, { recursive: true });
  if (configText !== undefined) writeFileSync(join(deps.dirs.config, "config.toml"), configText);
  const grant = (over: Partial<NewGrant> = {}) => {
    return grantFor(deps, { target: "kube.pods", max_uses: 10, ...over });
  };
  return { deps, grant };
}

async function call(deps: Deps, args: Record<string, unknown>, cat = catalogue, tool = "kube_pods") {
  const out = await runCall({ capability: tool, args, origin: agent } as Call, cat, deps);
  return out.ok ? { ok: out.value } : { code: out.error.code, message: out.error.message, hint: out.error.hint };
}

const CONFIG = `
[defaults."kube.pods"]
limit = 5
context = "prod-eu"
[connections.staging]
area = "kube"
context = "staging-1"
[profiles.team-a]
area = "kube"
connection = "staging"
set = { namespace = "team-a" }
only = { namespace = ["team-a", "team-a-jobs"] }
[profiles.open]
area = "kube"
`;

describe("filling", () => {
  test("sent beats config, config beats the declared default, and the run sees the values", async () => {
    const { deps } = setup(CONFIG);
    expect(await call(deps, { namespace: "web" })).toEqual({
      ok: { type: "object", value: { namespace: "web", context: "prod-eu", limit: 5, output: "short" } },
    });
    expect(await call(deps, { namespace: "web", limit: 7, output: "wide" })).toMatchObject({
      ok: { value: { limit: 7, output: "wide" } },
    });
  });

  test("a value config gives that the CLI would refuse is refused as the operator's to change", async () => {
    const { deps } = setup('[defaults."kube.pods"]\nlimit = 500\ncontext = "x"\n');
    const out = await call(deps, { namespace: "web" });
    expect(out.code).toBe("core.config.invalid");
    expect(out.message).toContain("the operator's config sets kube.pods limit");
    expect(out.hint).toContain("the operator's to change");
  });

  test("proc.list takes its default limit from config", async () => {
    const { deps } = setup('[defaults."proc.list"]\nlimit = 2\n');
    const out = await runCall({ capability: "proc_list", args: {}, origin: agent }, builtinCatalogue(), deps);
    if (!out.ok || out.value.type !== "table") throw new Error("expected a table");
    expect(out.value.rows).toHaveLength(2);
  });
});

describe("operator-only inputs", () => {
  test("an agent that sends one gets byte for byte what a typo gets", async () => {
    const { deps } = setup(CONFIG);
    const operatorOnly = await call(deps, { namespace: "web", context: "prod-us" });
    const typo = await call(deps, { namespace: "web", contxt: "prod-us" });
    expect(operatorOnly.code).toBe("core.mcp.badargs");
    expect(operatorOnly.message?.replace('"context"', "X")).toBe(typo.message?.replace('"contxt"', "X"));
    expect(operatorOnly.hint).toBe(typo.hint);
    expect(operatorOnly.hint).not.toContain("context");
  });
});

describe("the schema's required flags", () => {
  test("an input config gives a value is not required; one only a profile sets stays required", () => {
    const config = parseConfig(CONFIG);
    const configured = new Set(Object.keys(config.defaults["kube.pods"] ?? {}));
    const schema = publishedSchema(kubePods, "agent", configured);
    expect(schema.required).toEqual(["namespace"]);
    expect(publishedSchema(kubePods, "agent").required).toEqual(["namespace", "limit"]);
    expect(Object.keys(schema.properties)).toEqual(["namespace", "limit", "output", "profile"]);
  });
});

describe("after the grant gate", () => {
  test("a required input only the operator gives, missing, is core.input.missing and the use is given back", async () => {
    const { deps, grant } = setup('[defaults."kube.pods"]\nlimit = 5\n');
    const g = grant({ profile: "open" });
    writeFileSync(
      join(deps.dirs.config, "config.toml"),
      '[defaults."kube.pods"]\nlimit = 5\n[profiles.open]\narea = "kube"\n',
    );
    const out = await call(deps, { namespace: "web", profile: "open" });
    expect(out).toMatchObject({ code: "core.input.missing", message: "context is required" });
    expect(deps.gate().get(g.id)?.uses).toBe(0);
  });

  test("a required input a named profile sets is looked for after the gate, and filled by it", async () => {
    const { deps, grant } = setup(CONFIG);
    grant({ profile: "team-a" });
    expect(await call(deps, { profile: "team-a" })).toEqual({
      ok: { type: "object", value: { namespace: "team-a", context: "staging-1", limit: 5, output: "short" } },
    });
  });

  test("a declaration error is refused before the gate: no grant spent", async () => {
    const { deps, grant } = setup(CONFIG);
    const g = grant({ profile: "team-a" });
    expect(await call(deps, { profile: "team-a", output: "tall" })).toMatchObject({ code: "core.input.option" });
    expect(await call(deps, { profile: "team-a", limit: 0 })).toMatchObject({ code: "core.input.range" });
    expect(deps.gate().get(g.id)?.uses).toBe(0);
  });
});

describe("profiles", () => {
  test("naming a profile needs a grant for that exact profile, even on a free read", async () => {
    const { deps, grant } = setup(CONFIG);
    grant({ profile: null });
    const refused = await call(deps, { profile: "team-a" });
    expect(refused.code).toBe("core.grant.required");
    expect(refused.hint).toContain("--profile team-a");
    grant({ profile: "open" });
    expect((await call(deps, { profile: "team-a" })).code).toBe("core.grant.required");
  });

  test("a fence is checked after the grant gate: without a grant the call is refused as needing one", async () => {
    const { deps } = setup(CONFIG);
    expect((await call(deps, { profile: "team-a", namespace: "kube-system" })).code).toBe("core.grant.required");
  });

  test("a value outside only: is core.profile.fenced, naming the input and neither the list nor the profile", async () => {
    const { deps, grant } = setup(CONFIG);
    const g = grant({ profile: "team-a" });
    const out = await call(deps, { profile: "team-a", namespace: "kube-system" });
    expect(out).toEqual({
      code: "core.profile.fenced",
      message: "namespace is outside what this call may reach",
      hint: "send another namespace, or call without profile",
    });
    expect(JSON.stringify(out)).not.toContain("team-a");
    // refused before it ran: the grant could not allow it, so the use is given back
    expect(deps.gate().get(g.id)?.uses).toBe(0);
    expect(await call(deps, { profile: "team-a", namespace: "team-a-jobs" })).toMatchObject({
      ok: { value: { namespace: "team-a-jobs" } },
    });
    expect(deps.gate().get(g.id)?.uses).toBe(1);
  });

  test("a blank is said as a blank, not as a value outside the list", async () => {
    const { deps, grant } = setup(CONFIG);
    grant({ profile: "team-a" });
    const out = await call(deps, { profile: "team-a", namespace: "   " });
    expect(out.code).toBe("core.input.missing"); // required and sent empty: refused before any gate
    writeFileSync(
      join(deps.dirs.config, "config.toml"),
      `${CONFIG.replace('only = { namespace = ["team-a", "team-a-jobs"] }', 'only = { output = ["wide"] }')}`,
    );
    utimesSync(join(deps.dirs.config, "config.toml"), new Date(), new Date(Date.now() + 5000));
    const blank = await call(deps, { profile: "team-a", output: "" });
    expect(blank.code).toBe("core.input.option");
  });

  test("an unknown profile, or one for another area, is core.profile.unknown once a grant names it", async () => {
    const { deps, grant } = setup(CONFIG);
    grant({ profile: "nope" });
    expect((await call(deps, { profile: "nope" })).code).toBe("core.profile.unknown");
  });
});

describe("a config that does not read", () => {
  test("at start: what a profile could change is refused, the rest answer; the first good read lifts it", async () => {
    const { deps } = setup("this is [not toml");
    const cat = catalogueOf([...builtinCatalogue().all(), kubePods]);
    const refused = await call(deps, { namespace: "web" }, cat);
    expect(refused.code).toBe("core.profile.unreadable");
    expect(refused.hint).toContain("rta doctor");
    expect(refused.message).not.toContain(deps.dirs.config);
    const sys = await runCall({ capability: "sys_info", args: {}, origin: agent }, cat, deps);
    expect(sys.ok).toBe(true);
    writeFileSync(join(deps.dirs.config, "config.toml"), CONFIG);
    utimesSync(join(deps.dirs.config, "config.toml"), new Date(), new Date(Date.now() + 5000));
    // the bound the server looks at its config within: waited past, not timed
    await Bun.sleep(RECHECK_MS + 20);
    expect(await call(deps, { namespace: "web" }, cat)).toMatchObject({ ok: { value: { context: "prod-eu" } } });
  });

  test("later: a file that read once and fails now is answered from what was read", () => {
    const { deps } = setup(CONFIG);
    let now = 0;
    const source = new ConfigSource(join(deps.dirs.config, "config.toml"), () => now);
    expect(source.current().kind).toBe("ok");
    writeFileSync(join(deps.dirs.config, "config.toml"), "[[[ broken");
    utimesSync(join(deps.dirs.config, "config.toml"), new Date(), new Date(Date.now() + 5000));
    expect(source.current().kind).toBe("ok");
    now += RECHECK_MS;
    const state = source.current();
    expect(state.kind).toBe("stale");
    if (state.kind === "stale") expect(state.config.defaults["kube.pods"]?.limit).toBe(5);
  });
});

describe("parseConfig", () => {
  test("names what it cannot take", () => {
    expect(() => parseConfig("roots = ['relative']")).toThrow(/roots must be a list of absolute paths/);
    expect(() => parseConfig("colour = 1")).toThrow(/no setting "colour"/);
    expect(() => parseConfig("[connections.x]\nfolder = 1")).toThrow(/needs area/);
    expect(() => parseConfig('[profiles.p]\narea = "note"\nconnection = "nope"')).toThrow(/names connection nope/);
    expect(() => parseConfig('[profiles.p]\narea = "note"\nonly = { id = "x" }')).toThrow(/lists of values/);
  });
});
