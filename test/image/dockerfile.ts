/**
 * The repository's Dockerfile, read as a builder reads it: stages, each with
 * its instructions in order. Only what this Dockerfile uses is understood;
 * anything else is refused, so a change the tests cannot judge fails them
 * rather than passing unread.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");

export interface Instruction {
  /** upper case: FROM, COPY, RUN, … */
  op: string;
  /** the rest of the instruction, continuation lines joined by a space */
  args: string;
  /** its first line in the file, 1-based */
  line: number;
}

export interface Stage {
  /** the image it starts from */
  from: string;
  /** its `AS` name, if any */
  name?: string;
  instructions: Instruction[];
}

/**
 * The stages of a Dockerfile's text. Comment lines are dropped and lines
 * ending in a backslash are joined to the next. Refuses (throws) an
 * instruction before the first FROM, and a FROM with anything but an image
 * and an optional `AS name`.
 */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const at = i + 1;
    let line = (lines[i] as string).trim();
    if (line === "" || line.startsWith("#")) continue;
    while (line.endsWith("\\") && i + 1 < lines.length) {
      const next = (lines[++i] as string).trim();
      if (next.startsWith("#")) continue;
      line = `${line.slice(0, -1).trimEnd()} ${next}`;
    }
    const m = /^(\S+)\s*(.*)$/.exec(line) as RegExpExecArray;
    const op = (m[1] as string).toUpperCase();
    const args = (m[2] as string).trim();
    if (op === "FROM") {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile:${at}: FROM takes an image and an optional AS name: ${args}`);
      stages.push({ from: from[1] as string, ...(from[2] ? { name: from[2] } : {}), instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile:${at}: ${op} before the first FROM`);
    stage.instructions.push({ op, args, line: at });
  }
  return stages;
}

/** The repository's Dockerfile, parsed. Throws as parseDockerfile does. */
export function repoDockerfile(): Stage[] {
  return parseDockerfile(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
}

/** An instruction's exec (JSON array) form, or undefined when it is written in shell form. */
export function execForm(ins: Instruction): string[] | undefined {
  if (!ins.args.startsWith("[")) return undefined;
  const parsed: unknown = JSON.parse(ins.args);
  if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string"))
    throw new Error(`Dockerfile:${ins.line}: ${ins.op} is not an array of strings`);
  return parsed;
}

export interface Copy {
  from?: string;
  chown?: string;
  chmod?: string;
  sources: string[];
  dest: string;
}

/** A COPY's flags, sources and destination. Refuses a flag other than --from, --chown and --chmod, and the JSON form. */
export function copyOf(ins: Instruction): Copy {
  if (ins.op !== "COPY") throw new Error(`Dockerfile:${ins.line}: not a COPY`);
  const words = ins.args.split(/\s+/);
  const copy: Partial<Copy> = {};
  while (words[0]?.startsWith("--")) {
    const flag = /^--(from|chown|chmod)=(\S+)$/.exec(words.shift() as string);
    if (!flag) throw new Error(`Dockerfile:${ins.line}: COPY takes only --from, --chown and --chmod here`);
    copy[flag[1] as "from" | "chown" | "chmod"] = flag[2] as string;
  }
  if (words.length < 2 || words[0]?.startsWith("["))
    throw new Error(`Dockerfile:${ins.line}: COPY needs sources and a destination, in shell form`);
  return { ...copy, dest: words.pop() as string, sources: words };
}

/**
 * The variables a stage's ENV instructions set, in `KEY=value` form only
 * (several to a line). Refuses the old `ENV KEY value` form and quotes, which
 * this reader does not unfold.
 */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const ins of stage.instructions.filter((i) => i.op === "ENV")) {
    for (const pair of ins.args.split(/\s+/)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=([^"'\s]*)$/.exec(pair);
      if (!m) throw new Error(`Dockerfile:${ins.line}: ENV is read here as KEY=value pairs without quotes`);
      env[m[1] as string] = m[2] as string;
    }
  }
  return env;
}

/** The one instruction `op` of a stage; throws when there is none or more than one. */
export function only(stage: Stage, op: string): Instruction {
  const found = stage.instructions.filter((i) => i.op === op);
  if (found.length !== 1) throw new Error(`the stage from ${stage.from} has ${found.length} ${op}, not one`);
  return found[0] as Instruction;
}

/** The paths a stage's VOLUME instructions declare, JSON form or plain. */
export function volumesOf(stage: Stage): string[] {
  return stage.instructions.filter((i) => i.op === "VOLUME").flatMap((i) => execForm(i) ?? i.args.split(/\s+/));
}

/**
 * Whether a .dockerignore's patterns leave `path` (relative, with `/`) in the
 * build context, as Docker decides it: the last pattern that matches the path
 * or one of its parent directories wins, `!` puts back, `*` and `?` stay
 * within one name. Refuses (throws) `**`, which these patterns do not use.
 */
export function inContext(ignore: string, path: string): boolean {
  const patterns = ignore
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
  const parts = path.split("/");
  let kept = true;
  for (const raw of patterns) {
    const back = raw.startsWith("!");
    const pattern = (back ? raw.slice(1) : raw).replace(/^\/+|\/+$/g, "");
    if (pattern.includes("**")) throw new Error(`.dockerignore: ${raw}: ** is not read here`);
    const names = pattern.split("/");
    if (names.length > parts.length) continue;
    const hit = names.every((name, n) => globName(name).test(parts[n] as string));
    if (hit) kept = back;
  }
  return kept;
}

function globName(name: string): RegExp {
  const body = name
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replaceAll("*", "[^/]*")
    .replaceAll("?", "[^/]");
  return new RegExp(`^${body}$`);
}
