import { describe, expect, test } from "bun:test";
import { builtins } from "../../src/capabilities/builtins.ts";
import { define } from "../../src/core/capability.ts";
import { byCodePoint, Catalogue, isNeverATool, neverAToolList } from "../../src/core/catalogue.ts";
import { object } from "../../src/core/result.ts";

const make = (name: string) =>
  define({
    name,
    summary: name,
    safety: "read",
    inputs: {},
    result: { shape: "object" },
    examples: [],
    run: async () => object({}),
  });

describe("the catalogue", () => {
  test("lists in plain code-point order of the tool name, so _ sorts before letters", () => {
    const cat = new Catalogue([make("net.dnsx"), make("net.dns.query"), make("net.dns"), make("http.get")]);
    expect(cat.all().map((c) => c.tool)).toEqual(["http_get", "net_dns", "net_dns_query", "net_dnsx"]);
    expect(byCodePoint("a_b", "ab")).toBe(-1);
  });

  test("looks up by dotted name and by tool name", () => {
    const cat = new Catalogue(builtins);
    expect(cat.byName("proc.list")?.tool).toBe("proc_list");
    expect(cat.byTool("proc_list")?.name).toBe("proc.list");
    expect(cat.byName("proc_list")).toBeUndefined();
    expect(cat.byTool("proc.list")).toBeUndefined();
    expect(cat.areas()).toEqual([...new Set(builtins.map((c) => c.area))].sort(byCodePoint));
  });

  test("refuses a capability declared twice, and one that is never a tool", () => {
    expect(() => new Catalogue([make("a.b"), make("a.b")])).toThrow(/twice/);
    expect(() => new Catalogue([make("grant.allow")])).toThrow(/never a tool/);
    expect(() => new Catalogue([make("kv.edit")])).toThrow(/never a tool/);
  });

  test("the built-ins, in tool-name order, each once", () => {
    const tools = new Catalogue(builtins).all().map((c) => c.tool);
    expect(tools).toEqual([...tools].sort(byCodePoint));
    expect(new Set(tools).size).toBe(builtins.length);
    expect(tools).toContain("proc_list");
  });
});

describe("never a tool", () => {
  test("every verb of grant, agent, lock, operator and pkg, by dotted or tool name", () => {
    for (const name of [
      "grant.allow",
      "grant_revoke",
      "agent.log",
      "lock",
      "lock_lift",
      "operator.say",
      "pkg.install",
    ]) {
      expect(isNeverATool(name)).toBe(true);
    }
  });

  test("the listed verbs of other areas, and not their neighbours", () => {
    for (const name of ["audit.clients", "audit_doctor", "kv.copy", "kv_edit", "keys.export"]) {
      expect(isNeverATool(name)).toBe(true);
    }
    for (const name of ["audit.web", "kv.get", "kv_status", "proc.list", "granted.thing", "agents.x"]) {
      expect(isNeverATool(name)).toBe(false);
    }
  });

  test("explain's list names each area and verb", () => {
    const list = neverAToolList();
    expect(list).toContain("grant (every verb)");
    expect(list).toContain("audit doctor");
    expect(list).toContain("kv edit");
  });
});
