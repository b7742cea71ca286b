/**
 * The layout's rules, read from the source itself so a change that breaks one
 * fails here: capabilities and core never import the gate, nothing imports in
 * a cycle, no file passes 300 lines, and every exported function states its
 * contract in a comment just above it.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../../src");
const MAX_LINES = 300;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== "generated") out.push(...sourceFiles(full));
    } else if (name.endsWith(".ts")) out.push(full);
  }
  return out;
}

const files = sourceFiles(SRC);
const text = new Map(files.map((f) => [f, readFileSync(f, "utf8")]));
const rel = (f: string) => relative(SRC, f);

/** Each file's imports, resolved to files under src/; `typeOnly` for `import type` and `export type … from`. */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const out: { target: string; typeOnly: boolean }[] = [];
  const re = /^(import|export)(\s+type)?\s[^;]*?from\s+"(\.[^"]+)"|import\("(\.[^"]+)"\)/gms;
  for (const m of (text.get(file) as string).matchAll(re)) {
    const spec = m[3] ?? m[4];
    if (!spec) continue;
    out.push({ target: resolve(dirname(file), spec), typeOnly: m[2] !== undefined });
  }
  return out;
}

test("no capability imports the gate", () => {
  const bad = files
    .filter((f) => rel(f).startsWith("capabilities/"))
    .flatMap((f) =>
      importsOf(f)
        .filter((i) => rel(i.target).startsWith("gate/"))
        .map((i) => `${rel(f)} -> ${rel(i.target)}`),
    );
  expect(bad).toEqual([]);
});

test("core imports nothing outside core", () => {
  const bad = files
    .filter((f) => rel(f).startsWith("core/"))
    .flatMap((f) =>
      importsOf(f)
        .filter((i) => !rel(i.target).startsWith("core/") && !rel(i.target).startsWith("generated/"))
        .map((i) => `${rel(f)} -> ${rel(i.target)}`),
    );
  expect(bad).toEqual([]);
});

test("no import cycle, counting type imports too", () => {
  const edges = new Map(files.map((f) => [f, importsOf(f).map((i) => i.target)]));
  const cycles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, "open");
    stack.push(f);
    for (const t of edges.get(f) ?? []) {
      if (state.get(t) === "open") cycles.push([...stack.slice(stack.indexOf(t)), t].map(rel).join(" -> "));
      else if (!state.has(t) && edges.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, "done");
  };
  for (const f of files) if (!state.has(f)) visit(f);
  expect(cycles).toEqual([]);
});

test(`no source file is over ${MAX_LINES} lines`, () => {
  const long = files
    .map((f) => [rel(f), (text.get(f) as string).split("\n").length - 1] as const)
    .filter(([, n]) => n > MAX_LINES)
    .map(([f, n]) => `${f}: ${n}`);
  expect(long).toEqual([]);
});

test("every exported function says its contract in a comment just above it", () => {
  const bare: string[] = [];
  for (const f of files) {
    const lines = (text.get(f) as string).split("\n");
    lines.forEach((line, i) => {
      if (!/^export (async )?function\b|^export const \w+ = (async )?\(/.test(line)) return;
      const above = (lines[i - 1] ?? "").trim();
      if (!above.endsWith("*/") && !above.startsWith("//")) bare.push(`${rel(f)}:${i + 1}`);
    });
  }
  expect(bare).toEqual([]);
});
