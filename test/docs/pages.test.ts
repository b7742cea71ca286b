import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
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
