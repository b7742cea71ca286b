import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../../src/capabilities/builtinCatalogue.ts";
import { codes } from "../../src/core/errors.ts";
import { capabilitiesPage, errorsPage } from "../../src/docs/pages.ts";

const docs = join(import.meta.dir, "..", "..", "docs");

test("docs/errors.md is current with the code catalogue (run `npm run docs` if not)", () => {
  expect(readFileSync(join(docs, "errors.md"), "utf8")).toBe(errorsPage());
  for (const code of Object.keys(codes)) expect(errorsPage()).toContain(`\`${code}\``);
});

test("docs/capabilities.md is current with the declarations (run `npm run docs` if not)", () => {
  expect(readFileSync(join(docs, "capabilities.md"), "utf8")).toBe(capabilitiesPage(builtinCatalogue()));
});

/** The layout block of docs/architecture.md: each line's first column and description, carried-over lines joined. */
function architectureLayout(): { top: string; head: string; text: string }[] {
  const page = readFileSync(join(docs, "architecture.md"), "utf8");
  const rows: { top: string; head: string; text: string }[] = [];
  let top = "";
  for (const line of (page.split("```")[1] ?? "").split("\n")) {
    const last = rows.at(-1);
    if (line.trim() === "") continue;
    if (/^ {20,}/.test(line) && last) {
      last.text += ` ${line.trim()}`; // a description carried onto the next line
      continue;
    }
    const [head = "", ...text] = line.trim().split(/ {2,}|: /);
    if (!line.startsWith(" ")) top = head;
    rows.push({ top: line.startsWith(" ") ? top : "", head, text: text.join(": ") });
  }
  return rows;
}

/** The names a description lists after its colon, parentheses taken out: `a: x (y), z; more` gives x and z. */
function listed(text: string): string[] {
  let plain = text;
  while (/\([^()]*\)/.test(plain)) plain = plain.replace(/\([^()]*\)/g, "");
  const list = (plain.includes(":") ? plain.slice(plain.indexOf(":") + 1) : plain).split(";")[0] ?? "";
  return list
    .split(",")
    .map((w) => w.trim())
    .filter((w) => /^[a-z][A-Za-z]*$/.test(w));
}

/** The folders whose description in the layout lists the modules in them. */
const MODULE_LISTS = ["src/gate/paths/", "src/gate/net/", "src/gate/store/", "src/record/"];

/** The files docs/architecture.md names: each path in backticks, each name in its layout, and the modules its folders list. */
function architectureFiles(): string[] {
  const page = readFileSync(join(docs, "architecture.md"), "utf8");
  const names = [...page.matchAll(/`((?:src|test|bench)\/[^`*<>\s]+)`/g)].map((m) => m[1] as string);
  for (const { top, head, text } of architectureLayout()) {
    if (head.includes("<")) continue;
    if (top === "") names.push(head);
    for (const name of top === "" ? [] : head.split(/, */)) {
      if (name === "" || name.includes("*") || name.includes("…")) continue;
      names.push(top + (name.endsWith("/") || /\.\w+$/.test(name) ? name : `${name}.ts`));
    }
    const dir = top === "" ? head : top + head;
    if (MODULE_LISTS.includes(dir)) names.push(...listed(text).map((n) => `${dir}${n}.ts`));
  }
  return names;
}

test("every file and folder docs/architecture.md names is there", () => {
  const root = join(import.meta.dir, "..", "..");
  const names = architectureFiles();
  expect(names.length).toBeGreaterThan(60);
  expect(names.filter((name) => !existsSync(join(root, name)))).toEqual([]);
});

test("every action docs/architecture.md says src/gate/operator/ exports is exported there", async () => {
  const row = architectureLayout().find((r) => r.head === "operator/");
  const actions = listed(row?.text ?? "");
  expect(actions.length).toBeGreaterThan(8);
  const dir = join(import.meta.dir, "..", "..", "src", "gate", "operator");
  const exported = new Set<string>();
  for (const file of readdirSync(dir))
    for (const name of Object.keys(await import(join(dir, file)))) exported.add(name);
  expect(actions.filter((a) => !exported.has(a))).toEqual([]);
});
