/** completion/complete in process: schema values, and a path's names through the path gate. */
import { expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { define } from "../../src/core/capability.ts";
import { Catalogue } from "../../src/core/catalogue.ts";
import { object } from "../../src/core/result.ts";
import { PathGate } from "../../src/gate/paths/pathGate.ts";
import { agentRules } from "../../src/gate/paths/rules.ts";
import { complete, MAX_COMPLETIONS, pathCompletion } from "../../src/mcp/completion.ts";
import { toolListings } from "../../src/mcp/describe.ts";
import { readTemplates } from "../../src/mcp/templates.ts";
import { tempDir } from "../support/fixtures.ts";

const base = tempDir();
const root = join(base, "root");
const data = join(root, "data");
const config = join(base, "config");
mkdirSync(data, { recursive: true });
mkdirSync(config);
for (let i = 0; i < 150; i++) writeFileSync(join(root, `f${String(i).padStart(3, "0")}`), "");
mkdirSync(join(root, "sub"));
writeFileSync(join(root, "sub", "inner"), "");
// a link out of the root to rta's config dir: a name in the root, listed as a link, never followed
symlinkSync(config, join(root, "to-config"));
const gate = new PathGate([root], agentRules({ data, config }));

const cap = define({
  name: "box.read",
  summary: "Read from a box",
  safety: "read",
  inputs: {
    path: { type: "string", description: "what", required: true, path: "read" },
    mode: { type: "string", description: "how", options: ["fast", "full", "slow"] },
    deep: { type: "boolean", description: "deep" },
    note: { type: "string", description: "free text" },
  },
  result: { shape: "object" },
  examples: [],
  run: async () => object({}),
});
const catalogue = new Catalogue([cap]);
const templates = readTemplates(catalogue, toolListings(catalogue));
const ref = { type: "ref/resource", uri: "rta://box/read/{path}{?deep,mode,note}" };
const free = () => true;
const ask = (name: string, value: string) => complete(ref, { name, value }, catalogue, templates, () => gate, free);

test("an enum's values and a boolean's, filtered by what is typed; nothing for free text", () => {
  expect(ask("mode", "f")).toEqual({ values: ["fast", "full"], total: 2, hasMore: false });
  expect(ask("deep", "")).toEqual({ values: ["false", "true"], total: 2, hasMore: false });
  expect(ask("deep", "t").values).toEqual(["true"]);
  expect(ask("note", "x")).toEqual({ values: [], total: 0, hasMore: false });
  expect(ask("nope", "").values).toEqual([]);
  expect(
    complete(
      { type: "ref/resource", uri: "rta://other/{x}" },
      { name: "x", value: "" },
      catalogue,
      templates,
      () => gate,
      free,
    ).values,
  ).toEqual([]);
  expect(
    complete(
      { type: "ref/prompt", name: "site_check" },
      { name: "host", value: "" },
      catalogue,
      templates,
      () => gate,
      free,
    ).values,
  ).toEqual([]);
});

test("a path the gate will not let the agent list now (a lock, a rate limit) offers nothing; an enum still completes", () => {
  const asked: string[] = [];
  const refused = (c: { name: string }) => {
    asked.push(c.name);
    return false;
  };
  expect(complete(ref, { name: "path", value: "" }, catalogue, templates, () => gate, refused)).toEqual({
    values: [],
    total: 0,
    hasMore: false,
  });
  expect(asked).toEqual(["box.read"]);
  expect(complete(ref, { name: "mode", value: "f" }, catalogue, templates, () => gate, refused).values).toEqual([
    "fast",
    "full",
  ]);
});

test("a path: at most 100 names, the total counted, rta's own dir never offered", () => {
  const all = ask("path", "");
  expect(all.values).toHaveLength(MAX_COMPLETIONS);
  expect(all.total).toBe(152); // 150 files, sub and to-config: data is withheld
  expect(all.hasMore).toBe(true);
  expect(pathCompletion("d", gate).values).toEqual([]);
  expect(pathCompletion("data/", gate).values).toEqual([]);
  expect(pathCompletion("s", gate).values).toEqual(["sub/"]);
  expect(pathCompletion("sub/", gate).values).toEqual(["sub/inner"]);
  expect(pathCompletion(`${root}/sub/i`, gate).values).toEqual([`${root}/sub/inner`]);
  expect(pathCompletion("to-", gate).values).toEqual(["to-config"]);
  expect(pathCompletion("to-config/", gate).values).toEqual([]);
  expect(pathCompletion("../", gate).values).toEqual([]);
  expect(pathCompletion("/", gate).values).toEqual([]);
  expect(pathCompletion("f149/", gate).values).toEqual([]);
});
