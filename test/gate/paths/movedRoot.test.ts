/**
 * A root kept between calls keeps its real path with it (src/gate/paths/roots.ts). Renaming the root itself moves
 * its ctime, so it is opened again; renaming an ancestor and putting a link where it was leaves the root's look
 * unchanged, and what a walk opens is then named under the new path: it is served as before, and refused as before
 * when the new path lies inside one of rta's places.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readdirSync, readlinkSync, realpathSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ReadPath } from "../../../src/gate/paths/handles.ts";
import { PathGate } from "../../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../../src/gate/paths/rules.ts";
import { closeGated } from "../../../src/gate/paths/stage.ts";
import { tempDir } from "../../support/fixtures.ts";

/** Whether this process holds a descriptor of `dir`: the root kept after a call. */
const held = (dir: string) =>
  readdirSync("/proc/self/fd").some((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === dir;
    } catch {
      return false;
    }
  });

/** A root under `anc` with one file and a link to that file by the path it will have once `anc` is renamed. */
async function keptRoot() {
  const base = realpathSync(tempDir());
  const root = join(base, "anc", "root");
  mkdirSync(root, { recursive: true });
  mkdirSync(join(base, "data"));
  writeFileSync(join(root, "f.txt"), "kept");
  symlinkSync(join(base, "moved", "root", "f.txt"), join(root, "by-new-name"));
  // a root is kept only once its last change lies well before it is opened
  await Bun.sleep(300);
  const gate = new PathGate([root], agentRules({ data: join(base, "data"), config: join(base, "config") }));
  closeGated(gate.open(join(root, "f.txt"), "read"));
  expect(held(root)).toBe(true);
  return { base, root, gate };
}

const text = (p: unknown) => (p as ReadPath).read(0, 100).toString();

test("a kept root whose ancestor was renamed and linked back is served under its new path", async () => {
  const { base, root, gate } = await keptRoot();
  renameSync(join(base, "anc"), join(base, "moved"));
  symlinkSync("moved", join(base, "anc"));
  const p = gate.open(join(root, "f.txt"), "read");
  expect(text(p)).toBe("kept");
  closeGated(p);
  // an absolute link naming the root's new real path stays inside it
  const q = gate.open("by-new-name", "read");
  expect(text(q)).toBe("kept");
  closeGated(q);
});

test("a kept root whose ancestor was moved into rta's data dir is withheld", async () => {
  const { base, root, gate } = await keptRoot();
  renameSync(join(base, "anc"), join(base, "data", "anc"));
  symlinkSync(join("data", "anc"), join(base, "anc"));
  expect(() => gate.open(join(root, "f.txt"), "read")).toThrow(expect.objectContaining({ code: "core.path.withheld" }));
});

test("a kept root whose ancestor was moved into rta's data dir is withheld as a whole", async () => {
  const { base, gate } = await keptRoot();
  renameSync(join(base, "anc"), join(base, "data", "anc"));
  symlinkSync(join("data", "anc"), join(base, "anc"));
  expect(() => gate.open(".", "read")).toThrow(expect.objectContaining({ code: "core.path.withheld" }));
});

test("a kept root whose ancestor was moved into a git dir is not written", async () => {
  const { base, root, gate } = await keptRoot();
  const git = join(base, "repo", ".git");
  mkdirSync(join(git, "objects"), { recursive: true });
  mkdirSync(join(git, "refs"));
  writeFileSync(join(git, "HEAD"), "ref: refs/heads/main\n");
  renameSync(join(base, "anc"), join(git, "anc"));
  symlinkSync(join("repo", ".git", "anc"), join(base, "anc"));
  expect(() => gate.open(join(root, "hook.txt"), "write")).toThrow(
    expect.objectContaining({ code: "core.path.withheld" }),
  );
});
