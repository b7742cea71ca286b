/**
 * The kernel's trees mounted under a root, whatever their name: a proc, or a
 * proc file mounted over a file, is withheld; another file system mounted
 * there is read like the root's own. What is opened on the root's own device
 * is not asked its file system's type again, so each of these lies on a
 * device of its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PathIntent } from "../../src/core/access.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { closeGated } from "../../src/gate/paths/stage.ts";
import { canBindMount, tempDir } from "../support/fixtures.ts";

const mountable = canBindMount();
let root = "";
let gate: PathGate;
const mounts: string[] = [];

function mount(args: string[], at: string): void {
  expect(Bun.spawnSync(["mount", ...args, at]).exitCode).toBe(0);
  mounts.push(at);
}

function outcome(sent: string, intent: PathIntent = "read"): string {
  try {
    closeGated(gate.open(sent, intent));
    return "ok";
  } catch (err) {
    return (err as { code: string }).code;
  }
}

beforeAll(() => {
  if (!mountable) return;
  const base = realpathSync(tempDir());
  root = join(base, "root");
  mkdirSync(join(root, "chroot/proc"), { recursive: true });
  mkdirSync(join(root, "scratch"), { recursive: true });
  writeFileSync(join(root, "plain.txt"), "plain");
  writeFileSync(join(root, "status.txt"), "over this a proc file is mounted");
  gate = new PathGate([root], agentRules({ data: join(base, "data"), config: join(base, "config") }));
  mount(["-t", "proc", "proc"], join(root, "chroot/proc"));
  mount(["--bind", "/proc/self/status"], join(root, "status.txt"));
  mount(["-t", "tmpfs", "tmpfs"], join(root, "scratch"));
  writeFileSync(join(root, "scratch/note.txt"), "on a tmpfs");
});

afterAll(() => {
  for (const at of mounts.reverse()) Bun.spawnSync(["umount", at]);
});

describe.skipIf(!mountable)("the kernel's trees mounted under a root", () => {
  test("a file on the root's own device is read", () => {
    expect(outcome("plain.txt")).toBe("ok");
    expect(outcome(join(root, "plain.txt"))).toBe("ok");
  });

  test("a proc mounted inside is withheld, and what lies in it", () => {
    expect(outcome("chroot/proc")).toBe("core.path.withheld");
    expect(outcome("chroot/proc/self/environ")).toBe("core.path.withheld");
    expect(outcome("chroot/proc/version")).toBe("core.path.withheld");
  });

  test("a proc file mounted over a file is withheld", () => {
    expect(outcome("status.txt")).toBe("core.path.withheld");
  });

  test("another file system mounted inside is read like the root's own", () => {
    expect(outcome("scratch/note.txt")).toBe("ok");
  });
});
