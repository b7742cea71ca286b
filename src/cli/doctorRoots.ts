/**
 * The roots `rta doctor` checks: those a server started here with the same
 * --root would serve, each with where it came from, so a fix names the place
 * to change (never "drop that --root" for a root config names).
 */
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { PathGate } from "../gate/paths/pathGate.ts";
import type { GateRules } from "../gate/paths/rules.ts";

/** Where a root came from: `--root`, config.toml's `roots`, or the current directory, when neither names one. */
export type RootSource = "--root" | "config" | "default";

export interface ServedRoot {
  path: string;
  source: RootSource;
}

/**
 * The roots in the order a server takes them: --root first, then config's
 * not given again, else the current directory. Refuses nothing.
 */
export function servedRoots(
  given: readonly string[],
  fromConfig: readonly string[],
  cwd = process.cwd(),
): ServedRoot[] {
  const flags = [...new Set(given.map((r) => resolve(r)))];
  const served: ServedRoot[] = [
    ...flags.map((path) => ({ path, source: "--root" as const })),
    ...fromConfig.filter((r) => !flags.includes(r)).map((path) => ({ path, source: "config" as const })),
  ];
  return served.length > 0 ? served : [{ path: cwd, source: "default" }];
}

/** Says each root: fine, or why it cannot be read with the fix at its source; the default root is a note. */
export function checkRoots(
  roots: readonly ServedRoot[],
  configFile: string,
  rules: GateRules,
  add: (
    check: string,
    status: "ok" | "note" | "fail",
    detail: string,
    fix: string | undefined,
    source: RootSource,
  ) => void,
): void {
  const status = new PathGate(
    roots.map((r) => r.path),
    rules,
  ).status();
  roots.forEach((root, i) => {
    const from = FROM[root.source](configFile);
    const seen = status[i];
    if (seen?.readable) {
      if (root.source === "default")
        add(
          "root",
          "note",
          `${root.path} (${from})`,
          `a server started here serves this directory; choose with --root DIR or roots in ${configFile}`,
          root.source,
        );
      else add("root", "ok", `${root.path} (${from})`, undefined, root.source);
      return;
    }
    add("root", "fail", `${root.path} (${from}) cannot be read`, fixFor(root, configFile, seen?.problem), root.source);
  });
}

const FROM: Record<RootSource, (configFile: string) => string> = {
  "--root": () => "from --root",
  config: (configFile) => `from roots in ${configFile}`,
  default: () => "the current directory: no --root and no roots in config",
};

/** The fix for a root that cannot be read, said where the person named it. */
function fixFor(root: ServedRoot, configFile: string, problem = "it cannot be read"): string {
  const drop =
    root.source === "--root"
      ? "drop that --root"
      : root.source === "config"
        ? `take it out of roots in ${configFile}`
        : "start rta in a directory it can read, or name one with --root";
  if (!existsSync(root.path)) return `it does not exist; create it, or ${drop}`;
  if (!statSync(root.path).isDirectory()) return `it is not a directory; name a directory, or ${drop}`;
  return problem;
}
