/** eol.products: the products endoflife.date tracks, with their categories and the other names they go by. */
import { define } from "../../core/capability.ts";
import { apiUrlInput, client, type Freshness, listProducts } from "./api.ts";

export const eolProducts = define({
  name: "eol.products",
  summary: "List the products endoflife.date tracks: name, label, category and aliases",
  searchWords: ["end of life", "eol", "endoflife.date", "lifecycle"],
  safety: "read",
  offsite: "endoflife.date",
  inputs: {
    match: {
      type: "string",
      description: "only products whose name, label, category or an alias holds this text (any case)",
      positional: true,
    },
    api_url: apiUrlInput,
  },
  result: {
    shape: "table",
    columns: [
      { name: "name", doc: "the name eol.check takes" },
      { name: "label", doc: "the product's own name" },
      { name: "category", doc: "os, lang, database, server-app, framework, ..." },
      { name: "aliases", doc: "other names eol.check takes for it, comma-separated" },
    ],
  },
  examples: [
    { command: "rta eol products", note: "every product" },
    { command: "rta eol products database", note: "the databases" },
  ],
  async run(args, ctx) {
    const fresh: Freshness = { ageMs: 0, stale: false };
    const list = await listProducts(client(ctx, args.api_url), fresh);
    const match = args.match?.trim().toLowerCase() ?? "";
    const out = ctx.rows();
    let total = 0;
    for (const p of list) {
      const fields = [p.name, p.label, p.category, ...p.aliases];
      if (match !== "" && !fields.some((f) => f.toLowerCase().includes(match))) continue;
      total++;
      if (!out.full()) out.add([p.name, p.label, p.category, p.aliases.join(",")]);
    }
    return out.finish(total);
  },
});
