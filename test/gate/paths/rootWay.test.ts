/**
 * A kept root's real path is taken as read while every directory on it is found unchanged (src/gate/paths/rootWay.ts),
 * and a file opened in the root itself is then named by it without asking the kernel. Moving an ancestor of the root
 * changes the directory it was in, wherever that lies: the root is opened again and its real path read again, so a
 * root moved into rta's data dir is withheld even when nothing on the way to rta's places changed.
 */
import { afterAll, expect, test } from "bun:test";
import {
  accessSync,
  constants,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { ReadPath } from "../../../src/gate/paths/handles.ts";
import { PathGate } from "../../../src/gate/paths/pathGate.ts";
import { realEntry, wayHolds, wayTo } from "../../../src/gate/paths/rootWay.ts";
import { agentRules } from "../../../src/gate/paths/rules.ts";
import { closeGated } from "../../../src/gate/paths/stage.ts";
import { tempDir } from "../../support/fixtures.ts";

const text = (p: unknown) => (p as ReadPath).read(0, 100).toString();

/** A root two levels below a directory no place's way passes through, served once so that it is kept. */
async function keptRoot() {
  const base = realpathSync(tempDir());
  const root = join(base, "elsewhere", "anc", "root");
  mkdirSync(root, { recursive: true });
  mkdirSync(join(base, "data"));
  writeFileSync(join(root, "f.txt"), "kept");
  await Bun.sleep(300); // kept only once its way's last changes lie well before it is opened
  const gate = new PathGate([root], agentRules({ data: join(base, "data"), config: join(base, "cfg") }));
  const p = gate.open(join(root, "f.txt"), "read");
  expect(text(p)).toBe("kept");
  closeGated(p);
  return { base, root, gate };
}

test("a file in a kept root is read under the root's real path while its way is unchanged", async () => {
  const { root, gate } = await keptRoot();
  for (let i = 0; i < 3; i++) {
    const p = gate.open("f.txt", "read") as ReadPath;
    expect(text(p)).toBe("kept");
    expect(p.rel).toBe("f.txt");
    closeGated(p);
  }
  expect(() => gate.open(join(root, "..", "..", "f.txt"), "read")).toThrow(
    expect.objectContaining({ code: "core.path.outside" }),
  );
});

test("a kept root whose ancestor was moved into rta's data dir, from where no place's way passes, is withheld", async () => {
  const { base, root, gate } = await keptRoot();
  renameSync(join(base, "elsewhere", "anc"), join(base, "data", "anc"));
  symlinkSync(join("..", "data", "anc"), join(base, "elsewhere", "anc"));
  expect(() => gate.open(join(root, "f.txt"), "read")).toThrow(expect.objectContaining({ code: "core.path.withheld" }));
  expect(() => gate.open("f.txt", "read")).toThrow(expect.objectContaining({ code: "core.path.withheld" }));
});

test("the way is every directory above the real path, and holds until one of them changes", () => {
  const base = realpathSync(tempDir());
  const root = join(base, "a", "b");
  mkdirSync(root, { recursive: true });
  // a directory changed just now is not taken: a later change could share its ctime
  expect(wayTo(root, Date.now())).toBeUndefined();
  // taken once every change lies well before the root was opened (here, said to be later)
  const way = wayTo(root, Date.now() + 10_000);
  expect(way?.map((w) => w.name)).toEqual([join(base, "a"), base, ...ancestors(base)]);
  // the part of it this test alone changes (the temp dir's own parent changes as other programs work)
  const ours = way?.filter((w) => w.name.startsWith(base));
  expect(ours?.length).toBe(2);
  expect(wayHolds(ours)).toBe(true);
  writeFileSync(join(base, "a", "new"), "");
  expect(wayHolds(ours)).toBe(false);
  expect(wayTo("/", Date.now())).toEqual([]);
  expect(realEntry("/", "x")).toBe("/x");
  expect(realEntry(root, "x")).toBe(join(root, "x"));
  // past what the kernel names, the kernel is asked
  expect(realEntry(`/${"d".repeat(4090)}`, "name")).toBeUndefined();
});

function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let end = path.lastIndexOf("/"); end >= 0; end = end === 0 ? -1 : path.lastIndexOf("/", end - 1))
    out.push(end === 0 ? "/" : path.slice(0, end));
  return out;
}

/** The gate's own opening of a root, as a walk is handed it. */
class RootOpener extends PathGate {
  root(root: string) {
    return this.openRoot("f.txt", root);
  }
}

// Under `/`, not the temp dir, whose changes as other programs work would keep the way from settling.
const quiet = () => {
  const dir = mkdtempSync("/rta-test-way-");
  made.push(dir);
  return dir;
};
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const canMakeAtRoot = (() => {
  try {
    accessSync("/", constants.W_OK);
    return true;
  } catch {
    return false;
  }
})();

test.skipIf(!canMakeAtRoot)(
  "a root kept while a directory above it had just changed has its way looked for again, its real path read first",
  async () => {
    const base = quiet();
    const root = join(base, "a", "root");
    mkdirSync(root, { recursive: true });
    await Bun.sleep(300);
    writeFileSync(join(base, "a", "beside"), ""); // the root is settled, the directory above it not
    const gate = new RootOpener([root], agentRules({ data: join(base, "data"), config: join(base, "cfg") }));
    expect(gate.root(root).kept).toBe(true);
    expect(gate.root(root).realNow).toBe(false);
    await Bun.sleep(200);
    expect(gate.root(root).realNow).toBe(true);
    expect(gate.root(root).realNow).toBe(true);
    // a change above it again: opened again by its path, and its way not taken until it settles
    writeFileSync(join(base, "a", "beside2"), "");
    expect(gate.root(root).realNow).toBeFalsy();
  },
);
