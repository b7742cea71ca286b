/**
 * End to end: malformed messages over stdio cost only themselves. A fuzz of
 * 10,000 lines, malformed and valid mixed from a fixed seed, is sent to
 * dist/rta mcp serve on both protocol eras: every valid request is answered
 * (matched by id), every malformed line gets a parse error, and the session
 * is still there at the end.
 * See test/support/mcpFuzz.ts for what the stream holds.
 */
import { describe, expect, test } from "bun:test";
import { tempDir } from "../support/fixtures.ts";
import type { Era } from "../support/mcpClient.ts";
import { fuzz, prng, SEED } from "../support/mcpFuzz.ts";
import { RTA } from "../support/rta.ts";

async function drive(era: Era) {
  const { bytes, expected, malformed } = fuzz(era, SEED + (era === "modern" ? 1 : 0));
  const proc = Bun.spawn([RTA, "mcp", "serve", "--agent", "fuzz"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "", RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
  });
  const answered = new Map<string | number, number>();
  let parseErrors = 0;
  let unexpected = 0;
  const reading = (async () => {
    const reader = proc.stdout.getReader();
    const decoder = new TextDecoder();
    let carry = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      carry += decoder.decode(value, { stream: true });
      const lines = carry.split("\n");
      carry = lines.pop() ?? "";
      for (const l of lines) {
        const m = JSON.parse(l) as { id: string | number | null; error?: { code: number } };
        // JSON that is not JSON-RPC is an invalid request, answered with its id when it has one to read
        if (m.id === null && m.error?.code === -32700) parseErrors++;
        else if (m.error?.code === -32600 && (m.id === null || String(m.id).startsWith("bad-"))) parseErrors++;
        else if (expected.has(m.id as string | number))
          answered.set(m.id as string | number, (answered.get(m.id as string | number) ?? 0) + 1);
        // an answer to a request no valid line sent (a mutated bad id is answered as it was sent)
        else if (typeof m.id === "number" || String(m.id).startsWith("ok-")) unexpected++;
      }
      if (answered.size === expected.size) break;
    }
  })();
  // Written in pieces of odd sizes, so messages and characters are cut across reads.
  const rand = prng(SEED);
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + Math.floor(rand() * 8192);
    proc.stdin.write(bytes.subarray(at, at + size));
    at += size;
  }
  await proc.stdin.flush();
  await reading;
  await proc.stdin.end();
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return { expected, answered, parseErrors, unexpected, malformed, code, stderr };
}

describe("a fuzz of malformed and valid messages over stdio", () => {
  for (const era of ["modern", "legacy"] as Era[]) {
    test(`${era}: every valid request is answered once, every malformed line gets a parse error, and the session lives`, async () => {
      const r = await drive(era);
      const missing = [...r.expected].filter((id) => !r.answered.has(id));
      expect(missing).toEqual([]);
      expect([...r.answered.values()].every((n) => n === 1)).toBe(true);
      expect(r.expected.size).toBeGreaterThan(2500);
      expect(r.malformed).toBeGreaterThan(6500);
      expect(r.parseErrors).toBeGreaterThanOrEqual(r.malformed);
      expect(r.unexpected).toBe(0);
      // the session ended because its input did, not on a limit, and with nothing thrown
      expect(r.code).toBe(0);
      expect(r.stderr).not.toContain("MiB");
      expect(r.stderr).not.toMatch(/^\s+at /m);
    }, 30_000);
  }
});
