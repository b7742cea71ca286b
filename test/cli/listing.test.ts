/**
 * How the operator's listings print, in-process: relative times on a
 * terminal, ISO piped and in JSON, a cell that cannot break its row, and an
 * --args grant from before its arguments were kept shown by its digest.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { isoTime, relativeTime } from "../../src/cli/listing.ts";
import { plainCell } from "../../src/cli/plain.ts";
import { GateStore } from "../../src/gate/gateStore.ts";
import { tempDir } from "../support/fixtures.ts";
import { runCli, TEST_NOW_MS } from "../support/runCli.ts";

describe("times and cells", () => {
  test("a terminal's time is relative in its largest whole unit; a pipe's is ISO to the second", () => {
    const now = TEST_NOW_MS;
    expect(relativeTime(now + 29 * 60_000 + 59_000, now)).toBe("in 29m");
    expect(relativeTime(now - 3 * 60_000, now)).toBe("3m ago");
    expect(relativeTime(now + 90 * 86_400_000, now)).toBe("in 90d");
    expect(relativeTime(now + 400, now)).toBe("now");
    expect(isoTime(now)).toBe("2023-11-14T22:13:20Z");
    expect(isoTime(null)).toBe(null);
  });

  test("a piped cell holds no tab, line break or escape, and none is an empty field", () => {
    expect(plainCell("a\tb\nc\u001b[2J")).toBe("a\\tb\\nc\\x1b[2J");
    expect(plainCell(null)).toBe("");
    expect(plainCell(3)).toBe("3");
  });
});

describe("grant list", () => {
  test("an older --args grant shows its digest; a piped row has seven cells; --json keeps the digest", async () => {
    const data = tempDir();
    const env = { RTA_DATA_DIR: data, RTA_CONFIG_DIR: tempDir() };
    const store = new GateStore(join(data, "gate.db"));
    const digest = "ab".repeat(32);
    store.issue({
      target: "note.rm",
      record: null,
      agent: "claude",
      connection: null,
      profile: null,
      host: null,
      args_digest: digest,
      max_uses: 1,
      issued_at: TEST_NOW_MS,
      expires_at: TEST_NOW_MS + 300_000,
      issued_by: "test",
      build: "rta test",
      digest: null,
    });
    store.close();
    const piped = await runCli(["grant", "list"], { env });
    const cells = piped.stdout.trimEnd().split("\t");
    expect(cells.slice(1)).toEqual([
      "note.rm",
      "claude",
      "args digest abababababab",
      "0/1",
      "2023-11-14T22:18:20Z",
      "live",
    ]);
    const screen = await runCli(["grant", "list"], { env: { ...env, NO_COLOR: "1" }, tty: true });
    expect(screen.stdout).toMatch(/note\.rm +claude +args digest abababababab +0\/1 +in 5m +live\n$/);
    const json = JSON.parse((await runCli(["grant", "list", "--json"], { env })).stdout);
    expect(json).toMatchObject({
      total: 1,
      grants: [{ args_digest: digest, args: null, expires_at: "2023-11-14T22:18:20Z" }],
    });
    expect(
      (await runCli(["grant", "list"], { env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() } })).stdout,
    ).toBe("");
  });
});

describe("grant allow with no --agent", () => {
  test("the command in the hint is quoted for a shell and escaped for a terminal", async () => {
    const r = await runCli(["grant", "allow", "fs.write", "my file\u001b[2J", "--ttl", "5m"], {
      env: { RTA_DATA_DIR: tempDir(), RTA_CONFIG_DIR: tempDir() },
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toEndWith(
      "rta: hint: name one with --agent: rta grant allow fs.write 'my file\\x1b[2J' --ttl 5m --agent claude\n",
    );
  });
});
