/**
 * kv.list: the store's key names, their comments and when each was last set;
 * never a value. A free read.
 */
import { define } from "../../core/capability.ts";
import { isoSecond } from "./format.ts";
import { storeAt } from "./places.ts";
import { readStore } from "./store.ts";

export const kvList = define({
  name: "kv.list",
  summary: "List the secret store's key names with their comments, never their values",
  searchWords: ["secrets", "vault", "pass", "password store", "keys"],
  safety: "read",
  inputs: {
    prefix: { type: "string", description: "only names that start with this (`db/`, `team.`)", positional: true },
  },
  result: {
    shape: "table",
    columns: [
      { name: "name", doc: "the key's name" },
      { name: "comment", doc: "what the key is for, as set with its value, or null" },
      { name: "modified", doc: "when its value or comment was last set (UTC)", unit: "time" },
    ],
  },
  examples: [
    { command: "rta kv list", note: "every key in the store" },
    { command: "rta kv list db/", note: "the keys under db/" },
  ],
  async run(args, ctx) {
    const store = await readStore(storeAt(ctx));
    const names = [...store.keys()].filter((n) => args.prefix === undefined || n.startsWith(args.prefix)).sort();
    const rows = ctx.rows();
    for (const name of names) {
      if (rows.full()) break;
      const e = store.get(name);
      if (e) rows.add([e.name, e.comment ?? null, isoSecond(e.modified)]);
    }
    return rows.finish(names.length);
  },
});
