import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { person } from "../../src/core/call.ts";
import type { Deps } from "../../src/gate/deps.ts";
import { runCall } from "../../src/gate/pipeline.ts";
import { testDeps } from "../support/fixtures.ts";
import { noteCatalogue } from "../support/plugins.ts";

const catalogue = await noteCatalogue();
/** The result value, or `{ code, message }` for a refusal, loosely typed for the assertions. */
async function run(deps: Deps, capability: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const out = await runCall({ capability, args, origin: person }, catalogue, deps);
  if (!out.ok) return { code: out.error.code, message: out.error.message };
  return out.value;
}

/** The note plugin's folder in a data dir, when no connection names another. */
const notesDir = (data: string) => join(data, "notes");

describe("notes, from the note plugin", () => {
  test("add, list newest first, show and remove, each note a file written whole", async () => {
    const deps = testDeps();
    const a = (await run(deps, "note.add", { title: "Deploy checklist!", body: "drain\ndeploy" })) as {
      value: { id: string };
    };
    expect(a.value.id).toMatch(/^deploy-checklist-[0-9a-f]{6}$/);
    // the plugin keeps its own time: the first note is made older by hand, so the order does not hang on the clock
    const older = join(notesDir(deps.dirs.data), `${a.value.id}.json`);
    const first = JSON.parse(readFileSync(older, "utf8"));
    writeFileSync(older, JSON.stringify({ ...first, updated: "2026-11-30T10:00:00.000Z" }));
    const b = (await run(deps, "note.add", { title: "ünïcode ✓", body: "x" })) as { value: { id: string } };
    expect(b.value.id).toMatch(/^unicode-[0-9a-f]{6}$/);
    const list = (await run(deps, "note.list")) as { rows: unknown[][]; total: number };
    expect(list.rows.map((r) => r[0])).toEqual([b.value.id, a.value.id]);
    expect(list.rows[1]).toEqual([a.value.id, "Deploy checklist!", "2026-11-30T10:00:00.000Z", 12]);
    expect(list.rows[0]?.[2]).toMatch(/^\d{4}-\d\d-\d\dT/);
    const shown = (await run(deps, "note.show", { id: a.value.id })) as { value: Record<string, string> };
    expect(shown.value.body).toBe("drain\ndeploy");
    expect(await run(deps, "note.rm", { id: a.value.id })).toMatchObject({ value: { removed: true } });
    expect(await run(deps, "note.show", { id: a.value.id })).toMatchObject({ code: "note.notfound" });
    expect(readdirSync(notesDir(deps.dirs.data)).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  test("an id that could name a path is just not found", async () => {
    const deps = testDeps();
    for (const id of ["../gate", "/etc/passwd", "a/b", ".hidden", "x".repeat(200)]) {
      expect(await run(deps, "note.show", { id })).toMatchObject({ code: "note.notfound" });
      expect(await run(deps, "note.rm", { id })).toMatchObject({ code: "note.notfound" });
    }
  });

  test("a file in the folder that is not a note is skipped by the listing", async () => {
    const deps = testDeps();
    await run(deps, "note.add", { title: "one", body: "1" });
    writeFileSync(join(notesDir(deps.dirs.data), "junk.json"), "{not json");
    expect(((await run(deps, "note.list")) as { total: number }).total).toBe(1);
  });
});

describe("proc.kill", () => {
  test("sends the signal to a process and says so", async () => {
    const sleeper = Bun.spawn(["sleep", "60"]);
    const out = await run(testDeps(), "proc.kill", { pid: sleeper.pid, signal: "KILL" });
    expect(out).toMatchObject({ value: { pid: sleeper.pid, signal: "KILL", sent: true } });
    await sleeper.exited;
    expect(sleeper.signalCode).toBe("SIGKILL");
  });

  test("a pid that does not exist, rta itself, and a signal off the list are refused", async () => {
    const deps = testDeps();
    expect(await run(deps, "proc.kill", { pid: 4_194_000 })).toMatchObject({ code: "proc.notfound" });
    expect(await run(deps, "proc.kill", { pid: process.pid })).toMatchObject({ code: "proc.denied" });
    expect(await run(deps, "proc.kill", { pid: 1234, signal: "SEGV" })).toMatchObject({ code: "core.input.option" });
    expect(await run(deps, "proc.kill", { pid: 1 })).toMatchObject({ code: "core.input.range" });
  });
});
