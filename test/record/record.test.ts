import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileRecord } from "../../src/record/append.ts";
import { parseRecord, readRecord } from "../../src/record/read.ts";
import { callEntry as entry, tempDir } from "../support/fixtures.ts";

describe("FileRecord", () => {
  test("opens nothing until the first line, then appends one JSON line per call with a per-session seq", () => {
    const dir = join(tempDir(), "data");
    const rec = new FileRecord(join(dir, "agent-log.jsonl"));
    expect(() => statSync(dir)).toThrow();
    rec.append(entry("a"));
    rec.append(entry("b"));
    rec.append(entry("a"));
    rec.close();
    const { lines, malformed } = readRecord(join(dir, "agent-log.jsonl"));
    expect(malformed).toEqual([]);
    expect(lines.map((l) => `${l.session}${l.seq}`)).toEqual(["a1", "b1", "a2"]);
    expect(statSync(join(dir, "agent-log.jsonl")).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("a write that fails is handed over, not thrown: the call it records has already run", () => {
    const file = tempDir();
    let failed: unknown;
    const rec = new FileRecord(file, (err) => {
      failed = err;
    }); // a directory cannot be opened for append
    expect(() => rec.append(entry("a"))).not.toThrow();
    expect((failed as NodeJS.ErrnoException).code).toBe("EISDIR");
  });

  test("concurrent writers in separate processes never interleave inside a line", async () => {
    const file = join(tempDir(), "agent-log.jsonl");
    const writers = 4;
    const perWriter = 400;
    const script = join(import.meta.dir, "writer.fixture.ts");
    const procs = Array.from({ length: writers }, (_, i) =>
      Bun.spawn([process.execPath, script, file, `w${i}`, String(perWriter)], { stderr: "inherit" }),
    );
    const codes = await Promise.all(procs.map((p) => p.exited));
    expect(codes).toEqual(Array(writers).fill(0));
    const { lines, malformed } = readRecord(file);
    expect(malformed).toEqual([]);
    expect(lines).toHaveLength(writers * perWriter);
    for (let i = 0; i < writers; i++) {
      const seqs = lines.filter((l) => l.session === `w${i}`).map((l) => l.seq);
      expect(seqs).toEqual(Array.from({ length: perWriter }, (_, n) => n + 1));
    }
  });
});

describe("readRecord", () => {
  test("a missing record reads as empty", () => {
    expect(readRecord(join(tempDir(), "none.jsonl"))).toEqual({ lines: [], malformed: [] });
  });

  test("a torn or edited line is counted, and the rest stays readable", () => {
    const good = JSON.stringify({ ...entry("a"), seq: 1 });
    const read = parseRecord(`${good}\n{"time": "x", "sess\nnot json\n${good}\n`);
    expect(read.lines).toHaveLength(2);
    expect(read.malformed).toEqual([2, 3]);
  });

  test("reads what FileRecord wrote, byte for byte as JSON lines", () => {
    const file = join(tempDir(), "r.jsonl");
    writeFileSync(file, "");
    const rec = new FileRecord(file);
    rec.append({ ...entry("z"), probe: true, outcome: "core.tool.unknown" });
    rec.close();
    const text = readFileSync(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(readRecord(file).lines[0]).toMatchObject({ probe: true, outcome: "core.tool.unknown", seq: 1 });
  });
});
