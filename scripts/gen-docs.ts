/** Writes the generated docs pages (docs/errors.md, docs/capabilities.md). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { builtinCatalogue } from "../src/capabilities/builtinCatalogue.ts";
import { capabilitiesPage, errorsPage } from "../src/docs/pages.ts";

const docs = join(import.meta.dir, "..", "docs");
writeFileSync(join(docs, "errors.md"), errorsPage());
writeFileSync(join(docs, "capabilities.md"), capabilitiesPage(builtinCatalogue()));
console.log("wrote docs/errors.md and docs/capabilities.md");
