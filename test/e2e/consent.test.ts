/**
 * End to end: stage 9, live consent. A capability on the policy's confirm
 * list runs for an agent only once the person behind the client accepts the
 * call: asked by `elicitation/create` on 2025-11-25, by an `input_required`
 * round on 2026-07-28, with the official client on both eras.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { readRecord } from "../../src/record/read.ts";
import { tempDir } from "../support/fixtures.ts";
import { type Connected, connect, type Era, resultJson } from "../support/mcpClient.ts";

type Answer = "accept" | "decline" | "cancel" | "never";

interface Setup {
  era: Era;
  answer?: Answer;
  /** whether the client declares elicitation at all */
  elicits?: boolean;
  policy?: string;
}

interface Session extends Connected {
  root: string;
  asked: { message: string }[];
}

async function serve(o: Setup): Promise<Session> {
  const config = tempDir();
  const root = tempDir();
  writeFileSync(join(root, "a.txt"), "hello\n");
  mkdirSync(join(root, "sub"));
  writeFileSync(join(config, "policy.toml"), o.policy ?? 'confirm = ["fs.stat"]\n');
  const asked: { message: string }[] = [];
  const elicits = o.elicits ?? true;
  const s = await connect(o.era, ["--agent", "claude", "--root", root], {
    env: { RTA_CONFIG_DIR: config },
    ...(elicits ? { capabilities: { elicitation: { form: {} } } } : {}),
    setup: (client: Client) => {
      if (!elicits) return;
      client.setRequestHandler("elicitation/create", async (req) => {
        asked.push({ message: (req.params as { message: string }).message });
        if (o.answer === "never") return new Promise(() => {});
        return o.answer === "accept" || o.answer === undefined
          ? { action: "accept" as const, content: {} }
          : { action: o.answer as "decline" | "cancel" };
      });
    },
  });
  return { ...s, root, asked };
}

function outcomes(dataDir: string): string[] {
  return readRecord(join(dataDir, "agent-log.jsonl"))
    .lines.filter((l) => l.capability === "fs_stat")
    .map((l) => l.outcome as string);
}

for (const era of ["legacy", "modern"] as const) {
  describe(`confirm on ${era}`, () => {
    test("accepted: the person is shown the call and it runs", async () => {
      const s = await serve({ era, answer: "accept" });
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
        expect(r.isError).toBeFalsy();
        expect(resultJson(r).type).toBe("object");
        expect(s.asked).toHaveLength(1);
        expect(s.asked[0]?.message).toContain("claude asks to run fs.stat");
        expect(s.asked[0]?.message).toContain("path: a.txt");
        const kept = outcomes(s.dataDir);
        expect(kept.at(-1)).toBe("ok");
        if (era === "modern") expect(kept).toContain("core.consent.asked");
      } finally {
        await s.close();
      }
    });

    test("declined: refused as core.consent.declined, and on the record", async () => {
      const s = await serve({ era, answer: "decline" });
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
        expect(r.isError).toBe(true);
        expect(resultJson(r).code).toBe("core.consent.declined");
        expect(resultJson(r).message).toMatch(/declined/);
        expect(outcomes(s.dataDir).at(-1)).toBe("core.consent.declined");
      } finally {
        await s.close();
      }
    });

    test("a client that cannot elicit: refused as core.consent.unavailable, never run", async () => {
      const s = await serve({ era, elicits: false });
      try {
        const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
        expect(r.isError).toBe(true);
        expect(resultJson(r).code).toBe("core.consent.unavailable");
        expect(outcomes(s.dataDir)).toEqual(["core.consent.unavailable"]);
        // a capability on no list still runs as before
        const free = await s.client.callTool({ name: "fs_list", arguments: { path: "." } });
        expect(free.isError).toBeFalsy();
      } finally {
        await s.close();
      }
    });
  });
}

test("legacy: no answer within consent_timeout is a refusal", async () => {
  const s = await serve({ era: "legacy", answer: "never", policy: 'confirm = ["fs"]\nconsent_timeout = "1s"\n' });
  try {
    const r = await s.client.callTool({ name: "fs_stat", arguments: { path: "a.txt" } });
    expect(resultJson(r).code).toBe("core.consent.declined");
    expect(resultJson(r).message).toMatch(/no answer came within 1 s/);
  } finally {
    await s.close();
  }
});
