import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { canonical } from "../../src/core/canonical.ts";
import type { RecordEntry } from "../../src/record/append.ts";
import { chainMac } from "../../src/record/chain.ts";
import { sealLine } from "../../src/record/lineText.ts";

const key = Buffer.alloc(32, 7);
const base: RecordEntry = {
  time: "2026-12-01T00:00:00.000Z",
  session: "4a030411",
  agent: "claude",
  client: "claude-code 1.0",
  transport: "stdio",
  capability: "fs_read",
  outcome: "ok",
  duration_ms: 3,
  args: ["path"],
};
const odd = 'tab\there\nnew "quote" \\ \u0001 \u001b[31m é 😀 \ud800';

const entries: RecordEntry[] = [
  base,
  { ...base, kind: "start", pid: 4242, args: [], agent: "", client: "", capability: "", outcome: "start" },
  { ...base, kind: "run", outcome: "run", grant: "g0011aabb", duration_ms: 0 },
  { ...base, outcome: "core.tool.unknown", probe: true, capability: odd, agent: odd, client: odd },
  { ...base, outcome: "core.path.outside", error: { message: odd, hint: "run `rta grant`" } },
  { ...base, outcome: "core.path.outside", error: { message: "no hint" } },
  { ...base, outcome: "core.plugin.failed", error: { message: "plugin x failed", hint: "h", detail: odd } },
  { ...base, outcome: "core.plugin.failed", error: { message: "plugin x failed", detail: "(exit status 3)" } },
  { ...base, via: "resource", outcome: "core.grant.required", args: ["url"] },
  { ...base, kind: "run", via: "resource", outcome: "run", grant: "g0011aabb", duration_ms: 0 },
  { ...base, args: [odd, "b", ""], args_cut: { names: 900, bytes: 123456, sha256: "ab".repeat(32) } },
];

describe("a record line from the template", () => {
  test("is the canonical JSON the verifier macs, written as JSON.stringify would write what it reads", () => {
    let prev = { n: 41, mac: "cd".repeat(32) };
    for (const [i, entry] of entries.entries()) {
      const sealed = sealLine(key, entry, i + 1, prev);
      const parsed = JSON.parse(sealed.text) as Record<string, unknown>;
      expect(JSON.stringify(parsed)).toBe(sealed.text);
      expect(parsed).toEqual({ ...entry, seq: i + 1, n: prev.n + 1, mac: sealed.mac });
      const { mac: _mac, ...rest } = parsed;
      expect(sealed.mac).toBe(
        createHmac("sha256", key).update(prev.mac).update("\n").update(canonical(rest)).digest("hex"),
      );
      expect(chainMac(key, prev.mac, parsed)).toBe(sealed.mac);
      prev = { n: sealed.n, mac: sealed.mac };
    }
  });

  test("spells a field that changes from line to line afresh", () => {
    const a = JSON.parse(sealLine(key, base, 1, { n: 0, mac: "" }).text);
    const b = JSON.parse(sealLine(key, { ...base, agent: "cursor", session: "ffff0000" }, 1, { n: 0, mac: "" }).text);
    expect([a.agent, a.session, b.agent, b.session]).toEqual(["claude", "4a030411", "cursor", "ffff0000"]);
  });
});
