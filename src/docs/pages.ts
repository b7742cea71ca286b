/**
 * The generated docs pages: the error codes and the capability table, both
 * projections of the code (the code catalogue and the declarations), so the
 * docs cannot drift from what rta does. scripts/gen-docs.ts writes them and a
 * test checks they are current.
 */
import { cardOf } from "../core/card.ts";
import type { Catalogue } from "../core/catalogue.ts";
import { neverAToolList } from "../core/catalogue.ts";
import { codes, Exit } from "../core/errors.ts";

const exitNames = new Map<number, string>(Object.entries(Exit).map(([name, n]) => [n, name]));

/** docs/errors.md: every error code, its exit status and what it means. */
export function errorsPage(): string {
  let out =
    "# Error codes\n\nGenerated from `src/core/errors.ts` by `npm run docs`. Every refusal or failure carries one of these codes.\n\n";
  out += "| code | exit | meaning |\n| --- | --- | --- |\n";
  for (const [code, entry] of Object.entries(codes)) {
    out += `| \`${code}\` | ${entry.exit} (${exitNames.get(entry.exit)}) | ${entry.doc} |\n`;
  }
  return out;
}

/** docs/capabilities.md: one row per capability, from its card. */
export function capabilitiesPage(catalogue: Catalogue): string {
  let out =
    "# Capabilities\n\nGenerated from the declarations by `npm run docs`. `rta explain <capability>` shows the full card.\n\n";
  out += "| capability | command | tool | safety | mcp | summary |\n| --- | --- | --- | --- | --- | --- |\n";
  for (const cap of catalogue.all()) {
    const card = cardOf(cap);
    out += `| \`${card.name}\` | \`${card.command}\` | \`${card.tool}\` | ${card.safety} | ${card.mcp} | ${card.summary} |\n`;
  }
  out +=
    "\n## Never a tool\n\nThese answer to the person at the terminal and nobody else; they are absent from `tools/list` on every transport.\n\n";
  for (const name of neverAToolList()) out += `- ${name}\n`;
  return out;
}
