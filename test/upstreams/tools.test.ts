import { beforeAll, describe, expect, test } from "bun:test";
import type { UpstreamConfig } from "../../src/core/configUpstreams.ts";
import { loadPatterns } from "../../src/core/pattern.ts";
import { toolDigest, type UpstreamTool } from "../../src/upstreams/discover.ts";
import { masked } from "../../src/upstreams/secrets.ts";
import { annotatedSafety, normalisedName, safetyOf, upstreamCapabilities } from "../../src/upstreams/tools.ts";

const config = (tools: UpstreamConfig["tools"] = {}): UpstreamConfig => ({
  name: "up",
  transport: { kind: "stdio", command: ["x"], env: {} },
  tools,
});

function tool(name: string, over: Partial<UpstreamTool> = {}): UpstreamTool {
  const raw = { name, inputSchema: { type: "object", properties: { a: { type: "string" } } }, ...over };
  return { ...raw, digest: toolDigest(raw) };
}

const run = async () => ({ type: "text", text: "" }) as const;

beforeAll(loadPatterns);

describe("an upstream's tools as capabilities", () => {
  test("names are normalised to rta's rule", () => {
    expect(normalisedName("read_file")).toBe("read_file");
    expect(normalisedName("readFile")).toBe("read_file");
    expect(normalisedName("read-file")).toBe("read_file");
    expect(normalisedName("Read File")).toBe("read_file");
    expect(normalisedName("getHTTPStatus")).toBe("get_http_status");
    expect(normalisedName("\u001b[31mred\n")).toBeUndefined();
    expect(normalisedName("say\u001b[31mred\n")).toBe("say_31mred");
    expect(normalisedName("ünïcode")).toBe("n_code");
    expect(normalisedName("...")).toBeUndefined();
    expect(normalisedName("9lives")).toBeUndefined();
  });

  test("a free read only for readOnlyHint without openWorldHint; destructive only when it says so", () => {
    expect(annotatedSafety({ readOnlyHint: true })).toBe("read");
    expect(annotatedSafety({ readOnlyHint: true, openWorldHint: false })).toBe("read");
    expect(annotatedSafety({ readOnlyHint: true, openWorldHint: true })).toBe("write");
    expect(annotatedSafety(undefined)).toBe("write");
    expect(annotatedSafety({ destructiveHint: true })).toBe("destructive");
    expect(annotatedSafety({ readOnlyHint: "yes" })).toBe("write");
  });

  test("config makes a tool stricter, and laxer only with trust", () => {
    const lying = tool("peek", { annotations: { readOnlyHint: true } });
    expect(safetyOf(lying, config({ peek: { safety: "destructive", trust: false } })).safety).toBe("destructive");
    const web = tool("web", { annotations: { readOnlyHint: true, openWorldHint: true } });
    const lax = safetyOf(web, config({ web: { safety: "read", trust: false } }));
    expect(lax.safety).toBe("write");
    expect(lax.note).toContain("without trust = true");
    expect(safetyOf(web, config({ web: { safety: "read", trust: true } })).safety).toBe("read");
  });

  test("a collision and a schema ajv cannot compile leave only that tool out", () => {
    const made = upstreamCapabilities(
      config(),
      [
        tool("readFile"),
        tool("read_file"),
        tool("broken", { inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } } }),
        tool("notAnObject", { inputSchema: { type: "string" } }),
        tool("taken"),
        tool("fine", { annotations: { readOnlyHint: true } }),
        tool("escapes", { description: "clears \u001b[2J the screen" }),
        tool("hidden", { inputSchema: { type: "object", properties: { "a\u202eb": { type: "string" } } } }),
        tool("lines", { description: "two\nlines\tand a tab" }),
      ],
      run,
      new Set(["up_taken"]),
    );
    expect(made.caps.map((c) => c.tool)).toEqual(["up_read_file", "up_fine", "up_lines"]);
    expect(made.leftOut.map((l) => l.tool)).toEqual([
      "read_file",
      "broken",
      "notAnObject",
      "taken",
      "escapes",
      "hidden",
    ]);
    expect(made.leftOut[4]?.reason).toBe("its definition holds a control character at /description");
    expect(made.leftOut[0]?.reason).toContain('taken by its tool "readFile"');
    const fine = made.caps[1];
    expect(fine?.name).toBe("up.fine");
    expect(fine?.safety).toBe("read");
    expect(fine?.upstream?.digest).toMatch(/^[0-9a-f]{64}$/);
  });

  test("args are shaped against the upstream's schema, and an argument it does not name is refused", () => {
    const schema = {
      type: "object",
      properties: { paths: { type: "array", items: { type: "string" } }, n: { type: "integer" } },
      required: ["paths"],
    };
    const made = upstreamCapabilities(config(), [tool("many", { inputSchema: schema })], run, new Set());
    const check = made.validators["up.many#agent"];
    expect(check?.({ paths: ["a", "b"], n: 2 })).toBe(true);
    expect(check?.({ paths: "a" })).toBe(false);
    expect(check?.({ n: 2 })).toBe(false);
    expect(check?.({ paths: [], other: 1 })).toBe(false);
    expect(check?.errors?.[0]?.keyword).toBe("additionalProperties");
  });

  test("the digest is of the canonical definition: key order does not change it, a description does", () => {
    const a = toolDigest({ name: "t", inputSchema: { type: "object", properties: {} }, description: "d" });
    const b = toolDigest({ name: "t", description: "d", inputSchema: { properties: {}, type: "object" } });
    const c = toolDigest({ name: "t", inputSchema: { type: "object", properties: {} }, description: "e" });
    expect(a).toBe(b);
    expect(a).not.toBe(c);
  });

  test("an operator's secret is masked as itself and as JSON escapes it", () => {
    const secrets = ['to"ken/1', "Bearer abcd"];
    expect(masked('x to"ken/1 y', secrets)).toBe("x <upstream secret> y");
    expect(masked(JSON.stringify({ t: 'to"ken/1' }), secrets)).toBe('{"t":"<upstream secret>"}');
    expect(masked("Bearer abcd", secrets)).toBe("<upstream secret>");
  });

  test("a schema's pattern is matched by RE2: an agent's argument cannot hold the server in backtracking", () => {
    const schema = (pattern: string) => ({ type: "object", properties: { s: { type: "string", pattern } } });
    const made = upstreamCapabilities(
      config(),
      [tool("nested", { inputSchema: schema("^(a+)+$") }), tool("lookahead", { inputSchema: schema("^(?=a)a$") })],
      run,
      new Set(),
    );
    expect(made.caps.map((c) => c.tool)).toEqual(["up_nested"]);
    // what RE2 cannot take leaves that tool out, as a schema that does not compile does
    expect(made.leftOut).toEqual([{ tool: "lookahead", reason: expect.stringContaining("lookahead") }]);
    const nested = made.validators["up.nested#agent"];
    expect(nested?.({ s: "aaaa" })).toBe(true);
    // RegExp backtracks on this for hours; RE2 says no at once
    expect(nested?.({ s: `${"a".repeat(100)}!` })).toBe(false);
  });

  test("a tool whose name holds a control character is left out: it would be said as it is", () => {
    const made = upstreamCapabilities(
      config(),
      [tool("x\u001b]0;title\u0007y"), tool("ok\u202eevil"), tool("plain")],
      run,
      new Set(),
    );
    expect(made.caps.map((c) => c.tool)).toEqual(["up_plain"]);
    expect(made.leftOut.map((l) => l.reason)).toEqual([
      "its definition holds a control character at /name",
      "its definition holds a control character at /name",
    ]);
  });
});
